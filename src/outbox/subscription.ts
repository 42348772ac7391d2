/**
 * Which webhooks an event goes to, said once for the two places that ask: the fold queues an
 * event's deliveries in SQL (queueSubscribedDeliveries), and a delivery checks again in TypeScript
 * before each attempt, since the webhook may have changed while the event waited (deliver-attempt).
 * test/integration/subscription.test.ts holds the two against each other.
 */

export interface Subscriber {
  is_active: boolean;
  events: string[];
  /** Segment slugs it listens to; null (or empty) listens to all of its pipeline's. */
  segments: string[] | null;
}

/**
 * SQL over a `webhooks` row aliased `w`, true where it takes an event; bindings: the event type,
 * then the segment slug.
 */
export const SUBSCRIBED_SQL = `(w.is_active AND ?::text = ANY(w.events)
   AND (coalesce(cardinality(w.segments), 0) = 0 OR ?::text = ANY(w.segments)))`;

/** Why an event is not sent to a webhook (any more), or undefined when it is: SUBSCRIBED_SQL's rule, with the reason. */
export function whyNotSent(
  webhook: Subscriber,
  event: { event_type: string; segment_slug: string },
): string | undefined {
  if (!webhook.is_active) return 'not sent: the webhook is inactive; delivery stopped';
  if (event.event_type === 'ping') return undefined; // the test event goes to the webhook whatever it subscribes to
  if (!webhook.events.includes(event.event_type)) {
    return `not sent: the webhook no longer subscribes to ${event.event_type}; delivery stopped`;
  }
  if (webhook.segments && webhook.segments.length > 0 && !webhook.segments.includes(event.segment_slug)) {
    return `not sent: the webhook no longer listens to segment ${event.segment_slug}; delivery stopped`;
  }
  return undefined;
}
