/**
 * Signatures of webhook requests. Pure functions: same inputs, same headers.
 *
 * Two schemes are sent side by side:
 * - `X-Webhook-Signature`: lowercase hex HMAC-SHA256 of the raw body, keyed by the secret
 *   (the one the interface document describes).
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), so receivers can use
 *   an off-the-shelf verifier and get replay protection from the signed timestamp.
 *
 * Both key the HMAC with the UTF-8 bytes of the secret exactly as the customer typed it. The
 * `standardwebhooks` libraries expect a base64 secret (optionally prefixed `whsec_`) and decode it
 * to key bytes, so a receiver using them passes
 * `'whsec_' + Buffer.from(secret, 'utf8').toString('base64')`. (The library's `format: 'raw'`
 * option is not equivalent: it maps characters to Latin-1 bytes, which differs for non-ASCII secrets.)
 */
import { createHmac } from 'node:crypto';

/** Hex HMAC-SHA256 of the body's UTF-8 bytes, for `X-Webhook-Signature`. */
export function signBody(secret: string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex');
}

export interface StandardWebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Headers of the Standard Webhooks spec: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. During
 * a secret rotation's overlap `previousSecret` signs too, after the new one and space-separated
 * (`v1,<new> v1,<old>`), so a receiver holding either secret verifies the request.
 */
export function standardWebhookHeaders(args: {
  msgId: string;
  timestampSec: number;
  body: string;
  secret: string;
  previousSecret?: string;
}): StandardWebhookHeaders {
  const timestamp = String(Math.floor(args.timestampSec));
  const signed = `${args.msgId}.${timestamp}.${args.body}`;
  const mac = (secret: string) =>
    createHmac('sha256', Buffer.from(secret, 'utf8')).update(signed, 'utf8').digest('base64');
  const signatures = [args.secret, ...(args.previousSecret === undefined ? [] : [args.previousSecret])];
  return {
    'webhook-id': args.msgId,
    'webhook-timestamp': timestamp,
    'webhook-signature': signatures.map((s) => `v1,${mac(s)}`).join(' '),
  };
}

/** The headers that carry a signature: HMACs keyed by the secret, which must not be shown. */
const SIGNATURE_HEADERS = new Set(['x-webhook-signature', 'webhook-signature']);

/** The headers of a request as an attempt's row keeps them: every signature value replaced. */
export function redactSignatures(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      SIGNATURE_HEADERS.has(name.toLowerCase()) ? '(redacted)' : value,
    ]),
  );
}
