import { describe, expect, it } from 'vitest';
import { createFailingTurns } from './failing-turns.js';

function clocked() {
  let t = 1_000_000;
  const turns = createFailingTurns({ now: () => t });
  return { turns, advance: (ms: number) => (t += ms), at: () => t };
}

describe('failing turns', () => {
  it('never holds back a tenant delivering alone', () => {
    const { turns } = clocked();
    for (let i = 0; i < 100; i++) {
      expect(turns.take(1)).toEqual({ waitMs: 0 });
      turns.started(1);
    }
  });

  it('spaces a failing tenant at half the busiest other tenant rate while it delivers, each attempt its own turn', () => {
    const { turns, advance } = clocked();
    for (let i = 0; i < 20; i++) turns.started(2); // 20 in the last 2 s: 10 per second, half of it 5
    expect([0, 1, 2, 3, 4, 5].map(() => turns.take(1))).toEqual([
      { waitMs: 0 },
      { waitMs: 200 },
      { waitMs: 400 },
      { waitMs: 600 },
      { waitMs: 800 },
      { waitMs: 1_000 },
    ]);
    // Past the 1 s held in the worker: the turn itself is answered, to sleep on in the workflow.
    expect(turns.take(1)).toEqual({ deferMs: 1_200, turnAt: 1_000_000 + 1_200 });
    // The other tenant stops: after the window, no more turns.
    advance(2_001);
    expect(turns.take(1)).toEqual({ waitMs: 0 });
    expect(turns.take(1)).toEqual({ waitMs: 0 });
  });

  it('gives a failing tenant at least 2 attempts a second, and turns at most 5 minutes ahead', () => {
    const { turns } = clocked();
    turns.started(2); // 0.5 per second
    expect(turns.take(1)).toEqual({ waitMs: 0 });
    expect(turns.take(1)).toEqual({ waitMs: 500 });
    for (let i = 0; i < 700; i++) turns.take(1);
    const far = turns.take(1);
    expect(far).toEqual({ deferMs: 300_000, turnAt: 0 }); // asked again then, not booked
  });

  it('does not count the tenant own starts as another tenant', () => {
    const { turns } = clocked();
    for (let i = 0; i < 50; i++) turns.started(1);
    expect(turns.take(1)).toEqual({ waitMs: 0 });
  });
});

describe('failing turns booked with a failure', () => {
  it('books the next attempt no earlier than its retry, after the turns already given, only while another tenant delivers', () => {
    const { turns, advance } = clocked();
    expect(turns.bookNext(1, 1_000_000 + 1_000)).toBeUndefined(); // alone: the schedule decides
    for (let i = 0; i < 4; i++) turns.started(2); // 2 per second: turns 500 ms apart
    expect(turns.bookNext(1, 1_000_000 + 1_000)).toEqual({ turnAt: 1_001_000 });
    expect(turns.bookNext(1, 1_000_000 + 1_000)).toEqual({ turnAt: 1_001_500 });
    expect(turns.take(1)).toEqual({ waitMs: 0 }); // the current second still had its places
    expect(turns.bookNext(1, 1_000_000 + 10_000)).toEqual({ turnAt: 1_010_000 });
    // A retry scheduled far off books a turn near its own time, not near now.
    expect(turns.bookNext(1, 1_000_000 + 400_000)).toEqual({ turnAt: 1_400_000 });
    // Turns given up to 5 minutes past when the attempt could start: beyond, not booked.
    for (let i = 0; i < 800; i++) turns.bookNext(1, 1_000_000);
    expect(turns.bookNext(1, 1_000_000)).toEqual({ turnAt: 0 });
    advance(2_001);
    expect(turns.bookNext(1, 1_000_000 + 1_000)).toBeUndefined();
  });

  it('a retry booked two hours ahead does not push back the turns of the next minutes', () => {
    const { turns } = clocked();
    for (let i = 0; i < 4; i++) turns.started(2);
    expect(turns.bookNext(1, 1_000_000 + 7_200_000)).toEqual({ turnAt: 1_000_000 + 7_200_000 });
    expect(turns.take(1)).toEqual({ waitMs: 0 });
    expect(turns.bookNext(1, 1_000_000 + 60_000)).toEqual({ turnAt: 1_060_000 });
  });
});
