import { defineSearchAttributeKey } from '@temporalio/common';

/** Custom search attributes; the dev server registers them at start (src/temporal/search-attributes.ts). */
export const ProjectId = defineSearchAttributeKey('ProjectId', 'KEYWORD');
export const SourceId = defineSearchAttributeKey('SourceId', 'KEYWORD');
export const PipelineId = defineSearchAttributeKey('PipelineId', 'KEYWORD');
export const EventId = defineSearchAttributeKey('EventId', 'KEYWORD');
export const WebhookId = defineSearchAttributeKey('WebhookId', 'KEYWORD');
export const DeliveryAttempt = defineSearchAttributeKey('DeliveryAttempt', 'INT');
export const SegmentId = defineSearchAttributeKey('SegmentId', 'KEYWORD');
