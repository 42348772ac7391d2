/**
 * Custom search attributes the workflows set; the embedded dev server registers them at start.
 * Ids are Keywords: the SQL visibility store allows only 3 Int attributes, and ids are matched by
 * equality anyway (`ProjectId = "12"` in the Temporal UI).
 */
export const SEARCH_ATTRIBUTES = {
  ProjectId: 'Keyword',
  SourceId: 'Keyword',
  PipelineId: 'Keyword',
  EventId: 'Keyword',
  WebhookId: 'Keyword',
  DeliveryAttempt: 'Int',
  SegmentId: 'Keyword',
} as const;

export type SearchAttributeType = 'Int' | 'Keyword' | 'Text' | 'Double' | 'Bool' | 'Datetime';
