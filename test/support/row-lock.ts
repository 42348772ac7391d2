import pg from 'pg';
import { stack, waitFor } from './api.js';

/**
 * A crash at a recorded point instead of after a guessed sleep: the test holds a row's lock, the
 * service's request blocks on it inside its own transaction, and pg_locks records the wait. Killing
 * the process then is known to hit the request with its transaction open (the window), and
 * `waiters()` read at the kill says so. `release()` lets go (the waiters are gone with the process).
 */
export async function holdRowLock(table: 'webhooks', id: number) {
  const db = new pg.Client({ connectionString: stack().databaseUrl });
  await db.connect();
  await db.query('BEGIN');
  await db.query(`SELECT 1 FROM ${table} WHERE id = $1 FOR UPDATE`, [id]);
  const { rows } = await db.query('SELECT pg_backend_pid() AS pid');
  const holder: number = rows[0].pid;
  /**
   * Sessions waiting behind this lock: on it, or (a row's later waiters queue on the first one's
   * tuple lock) on a session that waits on it.
   */
  const waiters = async () =>
    (
      await db.query(
        `WITH RECURSIVE w(pid) AS (
           SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))
           UNION
           SELECT a.pid FROM pg_stat_activity a JOIN w ON w.pid = ANY(pg_blocking_pids(a.pid))
         )
         SELECT count(*)::int AS n FROM w`,
        [holder],
      )
    ).rows[0].n as number;
  return {
    waiters,
    /** Waits until `n` sessions wait behind the lock. */
    waitForWaiters: (n: number) =>
      waitFor(`${n} requests waiting on ${table} ${id}`, async () => (await waiters()) >= n, 30_000, 20),
    async release() {
      await db.query('ROLLBACK');
      await db.end();
    },
  };
}
