import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { stack, waitFor, withDb } from './api.js';

/**
 * What a worker killed by a test left behind: its database sessions, and the batch chunks it was
 * running, as Temporal records them.
 */

/** The sessions of the processes `worker/kill` ends (named by PGAPPNAME in stack.ts). */
const KILLED_BY_WORKER_KILL = ['profiling-worker', 'profiling-deliveryWorker'];

/** Sessions PostgreSQL holds for the processes `worker/kill` ends (before the kill: more than 0). */
export async function workerSessions(): Promise<number> {
  return withDb(async (db) =>
    Number(
      (
        await db.query('SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = ANY($1)', [
          KILLED_BY_WORKER_KILL,
        ])
      ).rows[0].n,
    ),
  );
}

/**
 * Waits until PostgreSQL has ended every session of the killed worker processes. A transaction
 * whose COMMIT the worker had sent before it died is committed by then, and nothing later can be:
 * counts read after this are the counts the dead worker left.
 */
export async function workerSessionsEnded(timeoutMs = 30_000): Promise<void> {
  await waitFor(
    'the killed worker’s database sessions to end',
    async () => (await workerSessions()) === 0,
    timeoutMs,
    50,
  );
}

/** One processChunk activity of a batch workflow: its items, and where Temporal has it. */
export interface Chunk {
  activityId: string;
  /** Item indexes [from, to) of the batch. */
  from: number;
  to: number;
  /** `started`: an attempt is running (or ran on a worker that died and has not timed out yet). */
  state: 'scheduled' | 'started' | 'completed';
  /** The attempt running or waiting, or the one that completed. */
  attempt: number;
}

const { PendingActivityState } = temporal.api.enums.v1;

/** The chunks of a batch's workflow (`batch-<installation>-<source_id>`), from its history and pending activities. */
export async function batchChunks(sourceId: number): Promise<Chunk[]> {
  const installation = await withDb(async (db) => (await db.query('SELECT id FROM installation')).rows[0].id as string);
  const connection = await Connection.connect({ address: stack().temporalAddress });
  try {
    const handle = new Client({ connection, namespace: 'default' }).workflow.getHandle(
      `batch-${installation}-${sourceId}`,
    );
    const [history, description] = await Promise.all([handle.fetchHistory(), handle.describe()]);
    const chunks = new Map<string, Chunk>();
    const byEvent = new Map<string, Chunk>();
    for (const e of history.events ?? []) {
      const scheduled = e.activityTaskScheduledEventAttributes;
      if (scheduled?.activityType?.name === 'processChunk') {
        const input = defaultPayloadConverter.fromPayload<{ from: number; to: number }>(scheduled.input!.payloads![0]);
        const chunk: Chunk = { activityId: scheduled.activityId!, ...input, state: 'scheduled', attempt: 1 };
        chunks.set(chunk.activityId, chunk);
        byEvent.set(String(e.eventId), chunk);
      }
      // Written when an attempt closes, with that attempt's number.
      const started = e.activityTaskStartedEventAttributes;
      const chunk = started && byEvent.get(String(started.scheduledEventId));
      if (chunk) chunk.attempt = started.attempt ?? 1;
      const completed = e.activityTaskCompletedEventAttributes;
      const done = completed && byEvent.get(String(completed.scheduledEventId));
      if (done) done.state = 'completed';
    }
    for (const p of description.raw.pendingActivities ?? []) {
      const chunk = chunks.get(p.activityId!);
      if (!chunk) continue;
      chunk.attempt = p.attempt ?? chunk.attempt;
      chunk.state = p.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED ? 'started' : 'scheduled';
    }
    return [...chunks.values()];
  } finally {
    await connection.close();
  }
}

/** Whether any of `items` (item indexes) lies in the chunk. */
export const holds = (chunk: Chunk, items: number[]) => items.some((i) => i >= chunk.from && i < chunk.to);
