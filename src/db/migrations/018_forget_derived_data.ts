import type { Knex } from 'knex';
import { forgetDerivedFromSwept } from '../../privacy/retention-derived.js';

/**
 * Issue 44, findings 4 and 7 (docs/privacy.md): what earlier versions kept that the current code
 * no longer writes. Data only, no schema change; each step is idempotent, so a run that died
 * half-way runs again from the top.
 * - The receivers' answers to the `user_removed` events of erasures: an answer can echo the id the
 *   erasure removed. Reduced to their status, as src/webhooks/kept-answer.ts now records them.
 * - Messages whose text an earlier retention sweep erased kept their churn words (words of the
 *   text), and their users' profile vector and churn words were still derived from them: the words
 *   are cleared and those profiles recomputed as the sweep now does
 *   (src/privacy/retention-derived.ts), in transactions of BATCH messages. One pass over messages
 *   by id; rows are waited for, never skipped, so none is left behind.
 */
export const config = { transaction: false };

const BATCH = 500;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `UPDATE webhook_deliveries d
        SET response_body = 'receiver answered ' || d.status_code || '; its answer is not kept (the event is about an erased user)'
       FROM events e
      WHERE e.id = d.event_id AND e.reason = 'erased' AND d.status_code <> 0
        AND d.response_body NOT LIKE 'receiver answered %; its answer is not kept %'`,
  );
  for (let after = 0; ;) {
    const { rows } = await knex.raw(
      `SELECT id, user_pk FROM messages WHERE id > ? AND text_erased_at IS NOT NULL ORDER BY id LIMIT ?`,
      [after, BATCH],
    );
    if (rows.length === 0) return;
    await knex.transaction(async (trx) => {
      // The users first, as an erasure and a fold take them before the messages: no lock cycle.
      await trx.raw('SELECT id FROM users WHERE id = ANY(?::bigint[]) ORDER BY id FOR NO KEY UPDATE', [
        [...new Set<string>(rows.map((r: { user_pk: string }) => r.user_pk))],
      ]);
      const { rows: swept } = await trx.raw(
        `UPDATE messages SET churn_words = NULL WHERE id = ANY(?::bigint[]) RETURNING id, user_pk`,
        [rows.map((r: { id: string }) => r.id)],
      );
      await forgetDerivedFromSwept(trx, swept);
    });
    after = Number(rows[rows.length - 1].id);
  }
}

/** Nothing to undo: what was cleared was derived from texts that are gone. */
export async function down(): Promise<void> {}
