#!/bin/sh
# One-shot job in temporalio/admin-tools: the namespace and the search attributes the workflows set
# (workflows/search-attributes.ts), registered once the server answers. Idempotent.
set -eu
until temporal operator cluster health --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; do sleep 2; done
temporal operator namespace describe --namespace default --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1 ||
  temporal operator namespace create --namespace default --retention 72h --address "$TEMPORAL_ADDRESS"
until temporal operator namespace describe --namespace default --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; do sleep 1; done
for a in ProjectId SourceId PipelineId EventId WebhookId SegmentId; do
  temporal operator search-attribute create --namespace default --name "$a" --type Keyword --address "$TEMPORAL_ADDRESS" || true
done
temporal operator search-attribute create --namespace default --name DeliveryAttempt --type Int --address "$TEMPORAL_ADDRESS" || true
