import { signBody, standardWebhookHeaders } from './signing.js';

/** What an attempt sends: the event's body and its signed headers, the same bytes on every attempt. */

/** The JSON body of an event; the same bytes on every attempt and for every webhook. */
export function eventBody(event: Record<string, any>): string {
  if (event.event_type === 'ping') {
    return JSON.stringify({
      event_type: 'ping',
      timestamp: (event.created_at as Date).toISOString(),
      pipeline_id: event.pipeline_id,
      message: 'Test event: this webhook is reachable and its signature can be verified.',
    });
  }
  return JSON.stringify({
    event_type: event.event_type,
    timestamp: (event.created_at as Date).toISOString(),
    pipeline_id: event.pipeline_id,
    segment: { id: event.segment_slug, name: event.segment_name },
    user: { id: event.user_id, score: event.score },
    // Extension: why, when it is not a rule's verdict: `erased` (privacy/erase-user.ts).
    ...(event.reason && { reason: event.reason }),
  });
}

/** The request headers of an attempt: the interface's, and the Standard Webhooks ones, signed. */
export function signedHeaders(
  deps: { openSecret: (sealed: string) => string; now?: () => Date },
  webhook: { secret_sealed: string | null; previous_secret_sealed: string | null; previous_secret_valid: boolean },
  eventId: number,
  eventType: string,
  body: string,
): Record<string, string> {
  const msgId = String(eventId);
  const timestampSec = Math.floor((deps.now?.() ?? new Date()).getTime() / 1000);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': 'semantic-profiling-webhooks/1',
    'X-Event-ID': msgId,
    'X-Event-Type': eventType,
  };
  if (!webhook.secret_sealed) {
    return { ...headers, 'webhook-id': msgId, 'webhook-timestamp': String(timestampSec) };
  }
  const secret = deps.openSecret(webhook.secret_sealed);
  const previousSecret =
    webhook.previous_secret_sealed && webhook.previous_secret_valid
      ? deps.openSecret(webhook.previous_secret_sealed)
      : undefined;
  // During a rotation's overlap `webhook-signature` carries both signatures, and the single
  // `X-Webhook-Signature` stays on the previous secret, the one a receiver has until it switches
  // (src/webhooks/rotate-secret.ts).
  return {
    ...headers,
    'X-Webhook-Signature': signBody(previousSecret ?? secret, body),
    ...standardWebhookHeaders({ msgId, timestampSec, body, secret, previousSecret }),
  };
}
