import { describe, expect, it } from 'vitest';
import { prettyLine, resolveLogFormat } from './logger.js';

describe('log format', () => {
  it('is pretty on a terminal and JSON lines otherwise, unless chosen', () => {
    expect(resolveLogFormat('auto', true)).toBe('pretty');
    expect(resolveLogFormat('auto', false)).toBe('json');
    expect(resolveLogFormat('json', true)).toBe('json');
    expect(resolveLogFormat('pretty', false)).toBe('pretty');
  });

  it('writes one readable line: clock, level, message, then the fields', () => {
    const line = prettyLine(
      {
        time: '2026-12-02T13:04:05.678Z',
        level: 'warn',
        msg: 'training analysis heads',
        role: 'worker',
        texts: 5928,
        reason: 'version 16 is not 17',
        err: new Error('boom'),
        skipped: undefined,
      },
      false,
    );
    expect(line).toBe(
      '13:04:05 WARN  training analysis heads  role=worker texts=5928 reason="version 16 is not 17" err="boom"',
    );
  });

  it('colours only when asked', () => {
    const record = { time: '2026-12-02T13:04:05.678Z', level: 'error' as const, msg: 'x' };
    expect(prettyLine(record, false)).not.toContain('\u001b[');
    expect(prettyLine(record, true)).toContain('\u001b[');
  });
});
