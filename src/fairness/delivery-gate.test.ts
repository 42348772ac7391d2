import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAnalysisActivity, createDeliveryGate } from './delivery-gate.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** Starts `n` attempts at once and records when each may go (ms of fake time). */
function attempts(gate: ReturnType<typeof createDeliveryGate>, n: number): number[] {
  const passed: number[] = [];
  const start = Date.now();
  for (let i = 0; i < n; i++) void gate.pass().then(() => passed.push(Date.now() - start));
  return passed;
}

describe('delivery gate', () => {
  it('lets every attempt go at once while the worker does not analyse', async () => {
    const gate = createDeliveryGate({ ratePerSecond: 1, maxWaitMs: 10_000 });
    const passed = attempts(gate, 5);
    await vi.advanceTimersByTimeAsync(0);
    expect(passed).toEqual([0, 0, 0, 0, 0]);
  });

  it('spaces attempts at the rate while it analyses, and lets them all go when it stops', async () => {
    const gate = createDeliveryGate({ ratePerSecond: 10, maxWaitMs: 10_000 });
    gate.setBusy(true);
    const passed = attempts(gate, 5);
    await vi.advanceTimersByTimeAsync(250);
    expect(passed).toEqual([0, 100, 200]);
    gate.setBusy(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(passed).toEqual([0, 100, 200, 250, 250]);
  });

  it('never holds an attempt longer than maxWaitMs, however long the analysis', async () => {
    const gate = createDeliveryGate({ ratePerSecond: 1, maxWaitMs: 300 });
    gate.setBusy(true);
    const passed = attempts(gate, 4);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(passed).toEqual([0, 300, 300, 300]);
  });

  it('starts the spacing afresh with the next busy spell', async () => {
    const gate = createDeliveryGate({ ratePerSecond: 10, maxWaitMs: 10_000 });
    gate.setBusy(true);
    attempts(gate, 20); // books two seconds ahead
    gate.setBusy(false);
    await vi.advanceTimersByTimeAsync(0);
    gate.setBusy(true);
    const passed = attempts(gate, 2);
    await vi.advanceTimersByTimeAsync(100);
    expect(passed).toEqual([0, 100]);
  });
});

describe('delivery gate following the analysis activity', () => {
  it('reads the stored batches before the first attempt after a quiet spell, and spaces attempts while one waits', async () => {
    let waiting = false;
    const analysis = createAnalysisActivity({ lingerMs: 250, pending: async () => waiting });
    const gate = createDeliveryGate({ ratePerSecond: 10, maxWaitMs: 10_000, analysis });
    waiting = true; // stored while nothing was delivered, so nothing polled
    const passed = attempts(gate, 5);
    await vi.advanceTimersByTimeAsync(150);
    expect(passed).toEqual([0, 100]); // already spaced: the first attempt waited for the answer
    waiting = false; // the batch completed: the next poll (at 250 ms) lets everyone waiting go
    await vi.advanceTimersByTimeAsync(100);
    expect(passed).toEqual([0, 100, 200, 250, 250]);
    const more = attempts(gate, 3);
    await vi.advanceTimersByTimeAsync(0);
    expect(more).toEqual([0, 0, 0]);
    analysis.stop();
  });
});

describe('analysis activity', () => {
  it('is busy while any analysis runs and for the linger after the last one', async () => {
    const activity = createAnalysisActivity({ lingerMs: 250 });
    const changes: boolean[] = [];
    activity.onChange((b) => changes.push(b));
    const a = activity.enter();
    const b = activity.enter();
    a();
    a(); // a second call changes nothing
    await vi.advanceTimersByTimeAsync(1_000);
    expect(activity.busy()).toBe(true); // b still runs
    b();
    await vi.advanceTimersByTimeAsync(200);
    expect(activity.busy()).toBe(true);
    const c = activity.enter(); // within the linger: no change is reported
    c();
    await vi.advanceTimersByTimeAsync(249);
    expect(activity.busy()).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(activity.busy()).toBe(false);
    expect(changes).toEqual([true, false]);
  });

  it('is busy while a batch waits anywhere, polled every linger, and judges by itself when the poll fails', async () => {
    let waiting: boolean | Error = false;
    const activity = createAnalysisActivity({
      lingerMs: 250,
      pending: async () => {
        if (waiting instanceof Error) throw waiting;
        return waiting;
      },
    });
    const changes: boolean[] = [];
    activity.onChange((b) => changes.push(b));
    await activity.watch(); // a delivery comes
    await vi.advanceTimersByTimeAsync(300);
    expect(activity.busy()).toBe(false);
    waiting = true; // another worker's tenant submitted a batch
    await vi.advanceTimersByTimeAsync(250);
    expect(activity.busy()).toBe(true);
    // Its chunk runs here and ends; the batch is still not completed: busy through the gap.
    const a = activity.enter();
    a();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(activity.busy()).toBe(true);
    waiting = new Error('database down');
    await vi.advanceTimersByTimeAsync(250);
    expect(activity.busy()).toBe(false);
    waiting = false;
    activity.stop();
    expect(changes).toEqual([true, false]);
  });

  it('polls only while deliveries come, and a delivery after a quiet spell waits for a fresh answer', async () => {
    let polls = 0;
    let waiting = false;
    const activity = createAnalysisActivity({
      lingerMs: 250,
      watchMs: 2_000,
      pending: async () => {
        polls++;
        return waiting;
      },
    });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(polls).toBe(0); // no delivery, no query
    await activity.watch();
    expect(polls).toBe(1); // the first delivery waited for an answer
    await activity.watch();
    expect(polls).toBe(1); // fresh enough: no second query
    await vi.advanceTimersByTimeAsync(2_000);
    expect(polls).toBe(9); // one per linger while watched
    await vi.advanceTimersByTimeAsync(10_000);
    expect(polls).toBe(9); // stopped after watchMs without a delivery
    waiting = true; // a batch arrived during the quiet spell
    expect(activity.busy()).toBe(false);
    await activity.watch();
    expect(polls).toBe(10);
    expect(activity.busy()).toBe(true); // the delivery sees it before it passes the gate
    activity.stop();
    await activity.watch(); // a delivery finishing during shutdown starts no new poll
    await vi.advanceTimersByTimeAsync(1_000);
    expect(polls).toBe(10);
  });
});
