import type { Knex } from 'knex';

export interface BriefLockOptions {
  /** How long one try waits for the table's lock before it gives up its place (ms). */
  lockTimeoutMs?: number;
  /** Tries before the migration fails (the process exits; its next start tries again). */
  tries?: number;
  /** Pause between tries, so the queries queued behind the last try run (ms). */
  pauseMs?: number;
}

/**
 * Runs a statement that takes its table's ACCESS EXCLUSIVE lock (ALTER TABLE … ADD COLUMN) without
 * holding up the table's traffic behind a long transaction. PostgreSQL grants locks in queue order:
 * an ALTER that waits for one open transaction also blocks every read and write that arrives after
 * it, for as long as it waits. With a short lock_timeout a try gives up its place, the queue behind
 * it drains, and it tries again. The statement itself is instant (a catalog change) once it has the
 * lock, so only the wait is bounded here.
 */
export async function withBriefLock(knex: Knex, statement: string, options: BriefLockOptions = {}): Promise<void> {
  const { lockTimeoutMs = 2_000, tries = 30, pauseMs = 1_000 } = options;
  // Inside a migration's transaction each try would be a savepoint, and the lock, once granted,
  // held to the migration's end: the migration must say `config = { transaction: false }`.
  if (knex.isTransaction) throw new Error('withBriefLock runs outside a transaction (config = { transaction: false })');
  for (let n = 1; ; n++) {
    try {
      await knex.transaction(async (trx) => {
        await trx.raw(`SET LOCAL lock_timeout = ${Math.max(1, Math.floor(lockTimeoutMs))}`);
        await trx.raw(statement);
      });
      return;
    } catch (err) {
      // 55P03 lock_not_available: this try's wait ran out. Anything else is the statement's own error.
      if ((err as { code?: string }).code !== '55P03') throw err;
      if (n >= tries) {
        throw new Error(
          `no lock for "${statement.trim().split(/\s+/).slice(0, 3).join(' ')}…" in ${tries} tries of ${lockTimeoutMs} ms: ` +
            'a long transaction holds the table (see pg_stat_activity); the next start tries again',
          { cause: err },
        );
      }
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  }
}
