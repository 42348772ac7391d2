import { describe, expect, it } from 'vitest';
import { createAnalysisScheduler } from './analysis-scheduler.js';
import { WaitYourTurn } from './in-flight.js';

const fixed = (ids: number[]) => async () => new Set(ids);
/** Lets pending promise callbacks run. */
const settle = () => new Promise((r) => setTimeout(r, 0));

/** Acquires and records the order in which tasks start. */
function recorder(s: ReturnType<typeof createAnalysisScheduler>) {
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  const ask = (tenant: number, name: string, signal?: AbortSignal) =>
    s.acquire(tenant, signal).then((release) => {
      started.push(name);
      releases.set(name, release);
    });
  return { started, release: (name: string) => releases.get(name)!(), ask };
}

describe('analysis scheduler', () => {
  it('lets a tenant alone run all slots but one; its further tasks wait in the worker, not sent back', async () => {
    const s = createAnalysisScheduler({ slots: 4, accept: 16, activeTenants: fixed([1]) });
    const r = recorder(s);
    for (let i = 0; i < 6; i++) void r.ask(1, `a${i}`);
    await settle();
    expect(r.started).toEqual(['a0', 'a1', 'a2']);
    expect(s.state()).toEqual({ running: 3, waiting: 3 });
    r.release('a0');
    await settle();
    expect(r.started).toEqual(['a0', 'a1', 'a2', 'a3']);
  });

  it("starts another tenant's task at once in the slot kept free, ahead of the backlog", async () => {
    const s = createAnalysisScheduler({ slots: 4, accept: 32, activeTenants: fixed([]) });
    const r = recorder(s);
    for (let i = 0; i < 20; i++) void r.ask(1, `big${i}`);
    await settle();
    void r.ask(2, 'small0');
    void r.ask(2, 'small1');
    await settle();
    expect(r.started).toEqual(['big0', 'big1', 'big2', 'small0']);
    // The next slot to free goes to the tenant with fewer tasks running... which is still tenant 2
    // (1 running against 2 after big0 ends).
    r.release('big0');
    await settle();
    expect(r.started.at(-1)).toBe('small1');
    r.release('big1');
    await settle();
    expect(r.started.at(-1)).toBe('big3');
  });

  it('runs a tenant at most its share of the slots while another tenant has work, idle slots or not', async () => {
    const s = createAnalysisScheduler({ slots: 8, accept: 32, activeTenants: fixed([1, 2]) });
    const r = recorder(s);
    for (let i = 0; i < 10; i++) void r.ask(1, `a${i}`);
    await settle();
    expect(r.started).toEqual(['a0', 'a1', 'a2', 'a3']); // 4 of 8: tenant 2 has a batch under way
    void r.ask(2, 'b0');
    await settle();
    expect(r.started.at(-1)).toBe('b0');
    expect(s.state()).toEqual({ running: 5, waiting: 6 });
    r.release('a0');
    await settle();
    expect(r.started.at(-1)).toBe('a4');
  });

  it("sends a task back when its tenant already holds its share of the worker's tasks", async () => {
    const s = createAnalysisScheduler({ slots: 2, accept: 6, activeTenants: fixed([1, 2]) });
    const r = recorder(s);
    for (let i = 0; i < 3; i++) void r.ask(1, `a${i}`);
    await expect(s.acquire(1)).rejects.toThrow(WaitYourTurn); // 3 of 6 held, 2 tenants
    await expect(s.acquire(2)).resolves.toBeTypeOf('function');
    const alone = createAnalysisScheduler({ slots: 2, accept: 4, activeTenants: fixed([]) });
    for (let i = 0; i < 3; i++) void alone.acquire(1);
    await expect(alone.acquire(1)).rejects.toThrow(/3 of 4/); // alone: all but one place
  });

  it('forgets a task whose activity is cancelled while it waits, and frees its place', async () => {
    const s = createAnalysisScheduler({ slots: 2, accept: 8, activeTenants: fixed([]) });
    const r = recorder(s);
    void r.ask(1, 'a0');
    const abort = new AbortController();
    const waiting = s.acquire(1, abort.signal);
    await settle();
    expect(s.state()).toEqual({ running: 1, waiting: 1 });
    abort.abort(new Error('activity cancelled'));
    await expect(waiting).rejects.toThrow('activity cancelled');
    expect(s.state()).toEqual({ running: 1, waiting: 0 });
    r.release('a0');
    r.release('a0'); // a second release changes nothing
    void r.ask(1, 'a1');
    await settle();
    expect(s.state()).toEqual({ running: 1, waiting: 0 });
  });

  it('counts a tenant that asked recently, and forgets it after recentMs', async () => {
    let t = 0;
    const s = createAnalysisScheduler({
      slots: 4,
      accept: 4,
      activeTenants: fixed([]),
      recentMs: 1_000,
      now: () => t,
    });
    (await s.acquire(2))();
    const held = [await s.acquire(1), await s.acquire(1)];
    await expect(s.acquire(1)).rejects.toThrow(WaitYourTurn); // 2 tenants: 2 of 4 each
    t = 1_500;
    held.push(await s.acquire(1)); // tenant 2 is forgotten: alone, 3 of 4
    expect(held).toHaveLength(3);
  });
});
