import type { Knex } from 'knex';
import { withBriefLock } from '../brief-lock.js';

/**
 * Issue 35: each message keeps the words that drove its churn reading (the word reader's most
 * weighted words and pairs in it; empty when it was not read as churn), so a profile's
 * `churn_risk_factors.churn_words` can say why without keeping a model's state per profile. A
 * nullable column without a default is a catalog change: instant whatever the table's size; its
 * lock is waited for in short tries (which needs to run outside a transaction, as 014 does). Null
 * for messages analysed before.
 */
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await withBriefLock(knex, 'ALTER TABLE messages ADD COLUMN IF NOT EXISTS churn_words text[]');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE messages DROP COLUMN IF EXISTS churn_words');
}
