import { describe, expect, it } from 'vitest';
import { keptAnswer } from './kept-answer.js';
import type { AttemptResult } from './http-attempt.js';

const WHO = 'erased-user-4711';
const echo = JSON.stringify({ received: { event_type: 'user_removed', user: { id: WHO } } });
const answers: AttemptResult[] = [
  { ok: true, statusCode: 200, responseBody: echo, durationMs: 3 },
  { ok: false, statusCode: 500, responseBody: echo, durationMs: 3, error: 'receiver answered 500' },
  {
    ok: false,
    statusCode: 302,
    responseBody: `redirect not followed (302 to https://r.example/?user=${WHO})`,
    durationMs: 3,
    error: `redirect not followed (302 to https://r.example/?user=${WHO})`,
  },
  {
    ok: false,
    statusCode: 429,
    responseBody: echo,
    durationMs: 3,
    error: 'receiver answered 429',
    retryAfterMs: 5_000,
  },
];

describe('keptAnswer', () => {
  it('keeps no word of the receiver for an event about an erased user: only its status', () => {
    for (const a of answers) {
      const kept = keptAnswer('erased', a);
      expect(JSON.stringify(kept)).not.toContain(WHO);
      expect(kept.responseBody).toBe(
        `receiver answered ${a.statusCode}; its answer is not kept (the event is about an erased user)`,
      );
      // The verdict is untouched: success, retry, Retry-After.
      expect({ ok: kept.ok, statusCode: kept.statusCode, retryAfterMs: kept.retryAfterMs }).toEqual({
        ok: a.ok,
        statusCode: a.statusCode,
        retryAfterMs: a.retryAfterMs,
      });
      expect(kept.error === undefined).toBe(a.error === undefined);
    }
  });

  it("keeps an ordinary event's answer as it came, for the operator to debug", () => {
    for (const a of answers) {
      expect(keptAnswer(null, a)).toBe(a);
      expect(keptAnswer('rule', a)).toBe(a);
    }
  });

  it('keeps the reasons this service wrote when no answer came (status 0)', () => {
    const timeout: AttemptResult = {
      ok: false,
      statusCode: 0,
      responseBody: 'timeout after 10000 ms',
      durationMs: 10_000,
      error: 'timeout after 10000 ms',
    };
    expect(keptAnswer('erased', timeout)).toBe(timeout);
  });
});
