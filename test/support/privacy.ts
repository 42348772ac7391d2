import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { call, withDb, type Tenant } from './api.js';

/** What the privacy tests share (test/e2e/privacy.test.ts, test/e2e/privacy-crash.test.ts). */
export const NEGATIVE = 'Terrible service, the app crashes every day and I want to cancel my subscription now.';

export const tag = () => randomBytes(6).toString('hex');

export async function submit(t: Tenant, users: { user_id: string; text: string; timestamp?: string }[]) {
  const res = await call('POST', '/api/v1/users', { key: t.key, body: { project_id: t.projectId, users } });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body as { accepted: number; source_id: number; suppressed?: number };
}

/** Every row of every table of the service's database whose text holds one of `needles`. */
export async function rowsHolding(needles: string[]): Promise<{ table: string; row: string }[]> {
  return withDb(async (db) => {
    const { rows: tables } = await db.query(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    expect(tables.length).toBeGreaterThan(15);
    const found: { table: string; row: string }[] = [];
    for (const { table_name } of tables) {
      const { rows } = await db.query(
        `SELECT t::text AS row FROM "${table_name}" t WHERE ${needles.map((_, i) => `strpos(t::text, $${i + 1}) > 0`).join(' OR ')}`,
        needles,
      );
      for (const r of rows) found.push({ table: table_name, row: r.row });
    }
    return found;
  });
}

/** A batch of `n` users where `who` writes every tenth item. */
export const racingBatch = (who: string, n: number, marker: string) =>
  Array.from({ length: n }, (_, i) =>
    i % 10 === 0
      ? { user_id: who, text: `${NEGATIVE} ${marker} ${i}` }
      : { user_id: `other-${i}`, text: `Message ${i}: the dashboard is slow on Mondays.` },
  );

export async function messagesOf(sourceId: number) {
  return withDb(async (db) =>
    Number((await db.query('SELECT count(*) FROM messages WHERE source_id = $1', [sourceId])).rows[0].count),
  );
}
