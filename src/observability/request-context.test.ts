import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from './logger.js';
import { acceptRequestId, currentRequestId, withRequestId } from './request-context.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('acceptRequestId', () => {
  it("keeps a caller's well-formed id", () => {
    for (const id of [
      'a',
      'req-42',
      '0b7c3a9e-6c1f-4f43-9d2b-3f1f2a8c9d10',
      'svc.gateway:01HZY5ZK9T_x',
      'x'.repeat(128),
    ])
      expect(acceptRequestId(id)).toBe(id);
  });

  it('replaces a missing or malformed one with a new UUID', () => {
    const malformed = [
      undefined,
      '',
      'x'.repeat(129),
      'two words',
      'a,b',
      'caf\u00e9',
      'new\nline',
      '"quoted"',
      ['a', 'b'],
      42,
    ];
    const given = malformed.map((id) => acceptRequestId(id));
    for (const id of given) expect(id).toMatch(UUID);
    expect(new Set(given).size).toBe(given.length);
  });
});

describe('the logger inside a request', () => {
  afterEach(() => vi.restoreAllMocks());

  function capture() {
    const lines: Record<string, unknown>[] = [];
    for (const stream of [process.stdout, process.stderr])
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        // Only our JSON lines: anything the test runner writes meanwhile is not the logger's.
        if (String(chunk).startsWith('{"time"')) lines.push(JSON.parse(String(chunk)));
        return true;
      });
    return lines;
  }

  it('names the request on every line written while it is handled, across awaits, and only there', async () => {
    const lines = capture();
    const log = createLogger('debug', { role: 'api' }).child({ part: 'test' });
    const handle = (id: string, ms: number) =>
      withRequestId(id, async () => {
        log.info('start');
        await new Promise((r) => setTimeout(r, ms));
        log.warn('after a wait');
        expect(currentRequestId()).toBe(id);
      });
    // Interleaved: the second starts and ends while the first waits.
    await Promise.all([handle('first', 30), handle('second', 1)]);
    log.info('outside');
    vi.restoreAllMocks();
    const byMsg = (msg: string) => lines.filter((l) => l.msg === msg).map((l) => l.request_id);
    expect(byMsg('start').sort()).toEqual(['first', 'second']);
    expect(byMsg('after a wait')).toEqual(['second', 'first']);
    expect(lines.find((l) => l.msg === 'outside')).not.toHaveProperty('request_id');
    expect(lines[0]).toMatchObject({ role: 'api', part: 'test', level: 'info' });
    expect(currentRequestId()).toBeUndefined();
  });
});
