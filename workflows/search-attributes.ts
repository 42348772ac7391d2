import { defineSearchAttributeKey } from '@temporalio/common';

/** Custom search attributes; the dev server registers them at start (src/temporal/search-attributes.ts). */
export const ProjectId = defineSearchAttributeKey('ProjectId', 'INT');
export const SourceId = defineSearchAttributeKey('SourceId', 'INT');
export const PipelineId = defineSearchAttributeKey('PipelineId', 'INT');
export const EventId = defineSearchAttributeKey('EventId', 'INT');
export const WebhookId = defineSearchAttributeKey('WebhookId', 'INT');
export const DeliveryAttempt = defineSearchAttributeKey('DeliveryAttempt', 'INT');
export const SegmentId = defineSearchAttributeKey('SegmentId', 'KEYWORD');
