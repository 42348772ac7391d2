import pg from 'pg';
import { idempotencyScope } from '../../src/idempotency.js';
import { stack, waitFor } from './api.js';

/**
 * A crash at a recorded point instead of after a guessed sleep: the test holds a lock, the
 * service's request blocks on it inside its own transaction, and pg_locks records the wait. Killing
 * the process then is known to hit the request with its transaction open (the window), and
 * `waiters()` read at the kill says so. `release()` lets go (the waiters are gone with the process).
 */
export interface HeldLock {
  /** Sessions waiting behind the lock now. */
  waiters(): Promise<number>;
  /** Waits until `n` sessions wait behind the lock; the message of a timeout says who waits for what. */
  waitForWaiters(n: number): Promise<void>;
  release(): Promise<void>;
}

/**
 * An answer to `Idempotency-Key` being stored, not yet committed: a request under that key runs
 * its whole transaction (src/idempotency.ts: it reads no stored answer, the row is not visible),
 * then blocks where it stores its own answer, its last write before the commit. Killed there, it
 * has done everything but commit.
 */
export async function holdIdempotencyKey(tenantId: number, key: string): Promise<HeldLock> {
  // The key's hash as the service stores it.
  const scope = idempotencyScope({ tenantId }, key, null)!;
  return held(`Idempotency-Key ${key}`, (db) =>
    db.query(`INSERT INTO idempotency_keys (tenant_id, key, response) VALUES ($1, $2, '{}')`, [
      scope.tenantId,
      scope.keyHash,
    ]),
  );
}

/**
 * A user's row held FOR UPDATE: the fold of any message of that user (src/ingest/process-chunk.ts,
 * the users upsert) waits on it after its batch was read and analysed, so that batch stays in
 * flight, not folded, until release(). Reads of the row (the api's checks) do not wait.
 */
export async function holdUserRow(projectId: number, userId: string): Promise<HeldLock> {
  return held(`the row of user ${userId}`, (db) =>
    db.query('SELECT 1 FROM users WHERE project_id = $1 AND user_id = $2 FOR UPDATE', [projectId, userId]),
  );
}

async function held(what: string, take: (db: pg.Client) => Promise<unknown>): Promise<HeldLock> {
  const db = new pg.Client({ connectionString: stack().databaseUrl });
  await db.connect();
  await db.query('BEGIN');
  await take(db);
  const { rows } = await db.query('SELECT pg_backend_pid() AS pid');
  const holder: number = rows[0].pid;
  /**
   * pg_stat_activity as it is now. Inside a transaction PostgreSQL answers it from a snapshot taken
   * at the first read, and the holder's transaction stays open: without a fresh one per read, a
   * session that connected since would never be seen.
   */
  const activity = async (sql: string, values: unknown[] = []) => {
    await db.query('SELECT pg_stat_clear_snapshot()');
    return (await db.query(sql, values)).rows;
  };
  /**
   * Sessions waiting behind this lock: on it, or (a row's later waiters queue on the first one's
   * tuple lock, a key's on the first one's advisory lock) on a session that waits on it.
   */
  const waiters = async () => {
    const [{ n }] = await activity(
      `WITH RECURSIVE w(pid) AS (
         SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))
         UNION
         SELECT a.pid FROM pg_stat_activity a JOIN w ON w.pid = ANY(pg_blocking_pids(a.pid))
       )
       SELECT count(*)::int AS n FROM w`,
      [holder],
    );
    return n as number;
  };
  /** Who waits on a lock, for what: the message of a window never reached. */
  const waiting = async () =>
    (
      await activity(
        `SELECT pid, wait_event, pg_blocking_pids(pid) AS blockers, left(query, 80) AS query
           FROM pg_stat_activity WHERE wait_event_type = 'Lock'`,
      )
    )
      .map((r) => `${r.pid} (${r.wait_event} behind ${r.blockers}): ${r.query}`)
      .join('; ');
  return {
    waiters,
    async waitForWaiters(n: number) {
      try {
        await waitFor(`${n} requests waiting on ${what}`, async () => (await waiters()) >= n, 30_000, 20);
      } catch (err) {
        throw new Error(`${(err as Error).message}; the holder is ${holder}; waiting: ${(await waiting()) || 'none'}`);
      }
    },
    async release() {
      await db.query('ROLLBACK');
      await db.end();
    },
  };
}
