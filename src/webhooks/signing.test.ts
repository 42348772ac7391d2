import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { receiverLibrarySecret } from '../../test/support/receiver-secret.js';
import { redactSignatures, signBody, standardWebhookHeaders } from './signing.js';

const body = JSON.stringify({ event_type: 'user_added', user: { id: 'u-1', score: 0.91 }, note: 'café ✓' });
const now = () => Math.floor(Date.now() / 1000);

describe('signBody', () => {
  it('is the lowercase hex HMAC-SHA256 of the raw body bytes', () => {
    // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
    expect(signBody('Jefe', 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('signs the UTF-8 bytes, so a receiver hashing the raw request bytes gets the same value', () => {
    const raw = Buffer.from(body, 'utf8');
    expect(signBody('s3cret-ü', body)).toBe(createHmac('sha256', Buffer.from('s3cret-ü')).update(raw).digest('hex'));
  });

  it('changes when the body or the secret changes', () => {
    expect(signBody('a', body)).not.toBe(signBody('b', body));
    expect(signBody('a', body)).not.toBe(signBody('a', body + ' '));
  });
});

describe('standardWebhookHeaders', () => {
  it('produces the three headers with a v1 base64 signature over "id.timestamp.body"', () => {
    const h = standardWebhookHeaders({ msgId: '42', timestampSec: 1_700_000_000, body: 'x', secret: 'k' });
    expect(h['webhook-id']).toBe('42');
    expect(h['webhook-timestamp']).toBe('1700000000');
    const expected = createHmac('sha256', 'k').update('42.1700000000.x').digest('base64');
    expect(h['webhook-signature']).toBe(`v1,${expected}`);
  });

  it.each(['plain-secret', 'sécret with ünicode ✓', 'whsec_looks-prefixed-but-is-plain'])(
    'verifies with the real standardwebhooks library given the documented secret mapping (%s)',
    (secret) => {
      const headers = standardWebhookHeaders({ msgId: 'evt-7', timestampSec: now(), body, secret });
      const base64 = Buffer.from(secret, 'utf8').toString('base64');
      expect(new Webhook(base64).verify(body, headers)).toEqual(JSON.parse(body));
      expect(new Webhook(receiverLibrarySecret(secret)).verify(body, headers)).toEqual(JSON.parse(body));
    },
  );

  it('signs with both secrets during a rotation, and the library verifies either alone', () => {
    const headers = standardWebhookHeaders({
      msgId: 'evt-7',
      timestampSec: now(),
      body,
      secret: 'new-secret',
      previousSecret: 'old-secret',
    });
    const [first, second, ...rest] = headers['webhook-signature'].split(' ');
    expect(rest).toEqual([]);
    const single = (secret: string) =>
      standardWebhookHeaders({ msgId: 'evt-7', timestampSec: Number(headers['webhook-timestamp']), body, secret });
    expect(first).toBe(single('new-secret')['webhook-signature']);
    expect(second).toBe(single('old-secret')['webhook-signature']);
    for (const secret of ['new-secret', 'old-secret']) {
      expect(new Webhook(receiverLibrarySecret(secret)).verify(body, headers)).toEqual(JSON.parse(body));
    }
    expect(() => new Webhook(receiverLibrarySecret('third')).verify(body, headers)).toThrow(/No matching signature/);
  });

  it('fails library verification for a tampered body, id or timestamp, or a wrong secret', () => {
    const secret = 'plain-secret';
    const headers = standardWebhookHeaders({ msgId: 'evt-7', timestampSec: now(), body, secret });
    const hook = new Webhook(receiverLibrarySecret(secret));
    expect(() => hook.verify(body.replace('0.91', '0.99'), headers)).toThrow(/No matching signature/);
    expect(() => hook.verify(body, { ...headers, 'webhook-id': 'evt-8' })).toThrow(/No matching signature/);
    // One second off the signed timestamp (not off the clock: the second may have ticked since signing).
    expect(() =>
      hook.verify(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) }),
    ).toThrow(/No matching signature/);
    expect(() => new Webhook(receiverLibrarySecret('other')).verify(body, headers)).toThrow(/No matching signature/);
  });
});

describe('redactSignatures', () => {
  it('replaces both signature headers, in any case, and keeps every other header as sent', () => {
    const secret = 'kept-out-of-rows';
    const headers = {
      'Content-Type': 'application/json',
      'X-Event-ID': '42',
      'X-Webhook-Signature': signBody(secret, body),
      ...standardWebhookHeaders({ msgId: '42', timestampSec: now(), body, secret, previousSecret: 'older-one' }),
    };
    const kept = redactSignatures(headers);
    expect(kept).toEqual({
      ...headers,
      'X-Webhook-Signature': '(redacted)',
      'webhook-signature': '(redacted)',
    });
    expect(redactSignatures({ 'x-webhook-signature': 'abc', 'Webhook-Signature': 'v1,abc' })).toEqual({
      'x-webhook-signature': '(redacted)',
      'Webhook-Signature': '(redacted)',
    });
  });
});
