import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withBriefLock } from '../../src/db/brief-lock.js';
import { createIndexConcurrently } from '../../src/db/concurrent-index.js';
import { createDb, type Db } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import * as m014 from '../../src/db/migrations/014_console_reads.js';
import { ownDatabase } from '../support/database.js';

/**
 * Migration 014 builds its indexes CONCURRENTLY, outside a transaction: writes go on while an index
 * waits and builds, and a run that died half-way is run again. On a database of its own, migrated
 * from empty as the service migrates.
 */
describe('migration 014 (concurrent index builds)', () => {
  let name: string;
  let url: string;
  let drop: (() => Promise<void>) | undefined;
  let db: Db;
  let projectId: number;

  const sql = async (text: string, values: unknown[] = [], opts: pg.ClientConfig = {}) => {
    const c = new pg.Client({ connectionString: url, ...opts });
    await c.connect();
    try {
      return (await c.query(text, values)).rows;
    } finally {
      await c.end();
    }
  };
  const validity = (index: string) =>
    sql('SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass($1)', [index]).then((r) =>
      r.map((x) => x.valid),
    );
  /** Until a statement of the migration (its text ILIKE `pattern`) waits for a lock. */
  const waitForLockWait = async (pattern: string) => {
    for (let n = 0; ; n++) {
      const waiting = await sql(
        `SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND query ILIKE $2 AND wait_event_type = 'Lock'`,
        [name, pattern],
      );
      if (waiting.length > 0) return;
      if (n > 200) throw new Error(`no statement like ${pattern} waited`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  /**
   * Until a second process waits for the migration lock (src/db/migrate.ts): a session that asked
   * for it, and does not hold it, whether it asks again and again or waits inside its statement.
   */
  const waitForLockWaiter = async () => {
    for (let n = 0; ; n++) {
      const waiting = await sql(
        `SELECT 1 FROM pg_stat_activity a
          WHERE a.datname = $1 AND a.pid <> pg_backend_pid() AND a.query ILIKE '%advisory_lock(%'
            AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.granted)`,
        [name],
      );
      if (waiting.length > 0) return;
      if (n > 200) throw new Error('no second process waited for the migration lock');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  /** Until the users_churn_page build waits for a lock (an open writer, or an older snapshot). */
  const waitForBuild = () => waitForLockWait('%INDEX%users_churn_page%');
  /** A session with a transaction left open after `statement`: what the migration must not queue behind. */
  const openTransaction = async (statement: string, values: unknown[] = []): Promise<pg.Client> => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('BEGIN');
    await c.query(statement, values);
    return c;
  };
  /** Undoes 014 as if it had never run (its row too), so the next migrateLatest runs it again. */
  const forget014 = () => sql(`DELETE FROM knex_migrations WHERE name = '014_console_reads'`);

  beforeAll(async () => {
    ({ name, url, drop } = await ownDatabase('profiling_migrate'));
    db = createDb(url, 2);
    expect(await migrateLatest(db)).toContain('014_console_reads');
    const [tenant] = await db('tenants').insert({ name: 'migrate' }).returning('id');
    [{ id: projectId }] = await db('projects').insert({ tenant_id: tenant.id, name: 'migrate' }).returning('id');
  });

  afterAll(async () => {
    await db?.destroy();
    await drop?.();
  });

  it('lets writes to users go on while users_churn_page waits for an open writer', async () => {
    await m014.down(db);
    await forget014();
    expect(await validity('users_churn_page')).toEqual([]);
    // A transaction that wrote to users and stays open: a plain CREATE INDEX would queue behind it
    // for its SHARE lock, and every later write to users behind that.
    const holder = await openTransaction(
      `INSERT INTO users (project_id, user_id, source_label) VALUES ($1, 'held', 'api')`,
      [projectId],
    );
    try {
      const running = migrateLatest(db);
      await waitForBuild();
      // Answered at once, while the build still waits (a blocked insert would hit the timeout).
      await sql(`INSERT INTO users (project_id, user_id, source_label) VALUES ($1, 'written', 'api')`, [projectId], {
        statement_timeout: 5_000,
      });
      expect(await validity('memberships_by_user')).toEqual([true]);
      await holder.query('COMMIT');
      expect(await running).toEqual(['014_console_reads']);
    } finally {
      await holder.end();
    }
    expect(await validity('users_churn_page')).toEqual([true]);
    expect(await sql(`SELECT count(*)::int AS n FROM users WHERE project_id = $1`, [projectId])).toEqual([{ n: 2 }]);
  });

  it('runs again after a crash half-way: the invalid index a failed concurrent build left is built anew', async () => {
    // Half-way: the column and memberships_by_user are there, the users_churn_page build failed and
    // left an INVALID index of that name (here a unique build over two rows of one project).
    await forget014();
    await sql('DROP INDEX users_churn_page');
    await expect(sql('CREATE UNIQUE INDEX CONCURRENTLY users_churn_page ON users (project_id)')).rejects.toThrow(
      /could not create unique index/,
    );
    expect(await validity('users_churn_page')).toEqual([false]);

    expect(await migrateLatest(db)).toEqual(['014_console_reads']);
    expect(await validity('users_churn_page')).toEqual([true]);
    expect(await validity('memberships_by_user')).toEqual([true]);
    const [def] = await sql(`SELECT pg_get_indexdef('users_churn_page'::regclass) AS text`);
    expect(def.text).toContain('(project_id, churn_risk_score DESC NULLS LAST, user_id)');
    expect(
      await sql(`SELECT 1 FROM information_schema.columns WHERE table_name = 'webhook_deliveries'
                        AND column_name = 'request_headers'`),
    ).toHaveLength(1);
    expect(await migrateLatest(db)).toEqual([]);
  });

  it('migrates once while a second process waits for the lock, without holding up the builds', async () => {
    await m014.down(db);
    await forget014();
    const other = createDb(url, 2);
    // The first process's users_churn_page build waits for an open writer while the second process
    // waits for the migration lock: the build then waits for every older snapshot, and a waiter
    // inside one statement would be one.
    const holder = await openTransaction(
      `INSERT INTO users (project_id, user_id, source_label) VALUES ($1, 'held-2', 'api')`,
      [projectId],
    );
    const settled: string[] = [];
    try {
      const first = migrateLatest(db).finally(() => settled.push('first'));
      await waitForBuild();
      const second = migrateLatest(other).finally(() => settled.push('second'));
      await waitForLockWaiter();
      // The window: the build still waits for the writer, the second process for the lock.
      expect(settled).toEqual([]);
      await holder.query('COMMIT');
      const outcomes = await Promise.allSettled([first, second]);
      // The first process's build finished while the second still waited for the lock: the waiter
      // held nothing the build waits for. (A waiter inside one statement would hold a snapshot: the
      // two would wait for each other until its statement timeout failed it, and it would settle first.)
      expect(settled).toEqual(['first', 'second']);
      expect(outcomes).toEqual([
        { status: 'fulfilled', value: ['014_console_reads'] },
        { status: 'fulfilled', value: [] },
      ]);
    } finally {
      await holder.end();
      await other.destroy();
    }
    expect(await validity('users_churn_page')).toEqual([true]);
  });

  it('waits for the deliveries table in short tries: reads behind it go on while a long transaction holds it', async () => {
    await m014.down(db);
    await forget014();
    // A long transaction that read webhook_deliveries: the ALTER cannot have the table until it ends.
    const holder = await openTransaction('SELECT count(*) FROM webhook_deliveries');
    try {
      const running = migrateLatest(db);
      // The ALTER is queued for the lock at least once...
      await waitForLockWait('ALTER TABLE webhook_deliveries%');
      // ...and a read that arrives behind it is answered while the holder is still open (with one
      // unbounded wait it would queue behind the ALTER until the holder ends, and time out here).
      for (let k = 0; k < 3; k++) {
        expect(
          await sql('SELECT count(*)::int AS n FROM webhook_deliveries', [], { statement_timeout: 10_000 }),
        ).toEqual([{ n: 0 }]);
      }
      await holder.query('COMMIT');
      expect(await running).toEqual(['014_console_reads']);
    } finally {
      await holder.end();
    }
    expect(
      await sql(`SELECT column_name AS c FROM information_schema.columns WHERE table_name = 'webhook_deliveries'
                    AND column_name IN ('request_headers', 'next_attempt_at') ORDER BY 1`),
    ).toEqual([{ c: 'next_attempt_at' }, { c: 'request_headers' }]);
  });

  it('gives up after its tries with a clear error, and leaves the table as it was', async () => {
    const holder = await openTransaction('SELECT count(*) FROM webhook_deliveries');
    try {
      await expect(
        withBriefLock(db, 'ALTER TABLE webhook_deliveries ADD COLUMN never_added int', {
          lockTimeoutMs: 100,
          tries: 3,
          pauseMs: 10,
        }),
      ).rejects.toThrow(/no lock for "ALTER TABLE webhook_deliveries…" in 3 tries of 100 ms/);
    } finally {
      await holder.end(); // its transaction rolls back
    }
    expect(
      await sql(`SELECT 1 FROM information_schema.columns WHERE table_name = 'webhook_deliveries'
                    AND column_name = 'never_added'`),
    ).toEqual([]);
    // Other errors are the statement's own, at once.
    await expect(withBriefLock(db, 'ALTER TABLE no_such_table ADD COLUMN x int')).rejects.toThrow(/does not exist/);
    // Inside a transaction it refuses: a granted lock would be held to the transaction's end.
    await expect(
      db.transaction((trx) => withBriefLock(trx, 'ALTER TABLE webhook_deliveries ADD COLUMN never_added int')),
    ).rejects.toThrow(/outside a transaction/);
  });

  it("gives the build's connection back with the pool's statement_timeout", async () => {
    const one = createDb(url, 1);
    try {
      await createIndexConcurrently(one, 'users_by_source_label', 'users (source_label)');
      const { rows } = await one.raw('SHOW statement_timeout');
      expect(rows[0].statement_timeout).toBe('30s');
    } finally {
      await one.destroy();
    }
  });
});
