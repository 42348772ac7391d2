import { defineSearchAttributeKey } from '@temporalio/common';

/** Custom search attributes, defined once: the embedded dev server registers this list at start (src/temporal/search-attributes.ts). */
export const ProjectId = defineSearchAttributeKey('ProjectId', 'KEYWORD');
export const SourceId = defineSearchAttributeKey('SourceId', 'KEYWORD');
export const PipelineId = defineSearchAttributeKey('PipelineId', 'KEYWORD');
export const EventId = defineSearchAttributeKey('EventId', 'KEYWORD');
export const WebhookId = defineSearchAttributeKey('WebhookId', 'KEYWORD');
export const DeliveryAttempt = defineSearchAttributeKey('DeliveryAttempt', 'INT');
export const SegmentId = defineSearchAttributeKey('SegmentId', 'KEYWORD');
