import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../observability/logger.js';
import { coreLogFilter, temporalLogger } from './runtime.js';

function capture() {
  const lines: string[] = [];
  for (const stream of [process.stdout, process.stderr])
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      if (String(chunk).startsWith('{"time"')) lines.push(String(chunk));
      return true;
    });
  return lines;
}

describe("the Temporal SDK's logger over ours", () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes each SDK line as one JSON line at our level, its fields under `temporal`', () => {
    const lines = capture();
    const log = createLogger('info', { role: 'worker' });
    const sdk = temporalLogger(log);
    // What the worker logs on each state change, and what the core forwards (a bigint timestamp
    // behind a symbol, a multi-line message).
    sdk.info('Worker state changed', { sdkComponent: 'worker', state: 'RUNNING', taskQueue: 'q' });
    sdk.log('WARN', 'poll failed\nretrying', {
      [Symbol.for('log_timestamp')]: 1n,
      sdkComponent: 'core',
      target: 'temporal_sdk_core',
      attempt: 3n,
      role: 'not ours',
    });
    sdk.debug('below info');
    sdk.trace('below info too');
    vi.restoreAllMocks();
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.trimEnd().split('\n')).toHaveLength(1);
    const [state, warn] = lines.map((l) => JSON.parse(l));
    expect(state).toMatchObject({
      level: 'info',
      msg: 'Worker state changed',
      role: 'worker',
      component: 'temporal:worker',
      temporal: { state: 'RUNNING', taskQueue: 'q' },
    });
    // An SDK field never overwrites ours.
    expect(warn).toMatchObject({
      level: 'warn',
      msg: 'poll failed\nretrying',
      role: 'worker',
      component: 'temporal:core',
      temporal: { target: 'temporal_sdk_core', attempt: '3', role: 'not ours' },
    });
  });

  it('drops lines below its floor (the bundler keeps only its warnings)', () => {
    const lines = capture();
    const sdk = temporalLogger(createLogger('debug'), 'WARN');
    sdk.info('Workflow bundle created', { size: '1MB' });
    sdk.error('bundle failed');
    vi.restoreAllMocks();
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['bundle failed']);
  });

  it("forwards the core's informational lines only at debug", () => {
    expect(coreLogFilter('info')).toEqual({ core: 'WARN', other: 'ERROR' });
    expect(coreLogFilter('debug')).toEqual({ core: 'INFO', other: 'ERROR' });
  });
});
