import type { Db } from '../db/knex.js';
import type { SecretBox } from './secret-box.js';

const PAGE = 500;
const COLUMNS = ['secret_sealed', 'previous_secret_sealed'] as const;

/**
 * After a rotation of SECRETS_KEY, seals again under the new key every webhook secret (current or
 * previous) that opens only under a key of SECRETS_KEY_PREVIOUS: unlike the user hashes, a secret
 * can be re-made, so after one start the old key is no longer needed for webhooks. Run by each
 * starting process that lists previous keys; each value is replaced only if it is still the one
 * read (compare and set), so processes doing it at once, or a secret changed meanwhile, are safe.
 * Answers how many values were sealed again.
 */
export async function resealWebhookSecrets(db: Db, box: Pick<SecretBox, 'reseal'>): Promise<number> {
  let resealed = 0;
  let after = 0;
  for (;;) {
    const page: { id: number; secret_sealed: string | null; previous_secret_sealed: string | null }[] = await db(
      'webhooks',
    )
      .where('id', '>', after)
      .andWhere((q) => q.whereNotNull('secret_sealed').orWhereNotNull('previous_secret_sealed'))
      .orderBy('id')
      .limit(PAGE)
      .select('id', ...COLUMNS);
    for (const row of page) {
      for (const column of COLUMNS) {
        const sealed = row[column];
        const again = sealed === null ? null : safeReseal(box, sealed);
        if (again === null) continue;
        resealed += await db('webhooks')
          .where({ id: row.id, [column]: sealed })
          .update({ [column]: again });
      }
    }
    if (page.length < PAGE) return resealed;
    after = Number(page[page.length - 1].id);
  }
}

/** A value that is not a sealed secret at all is left as it is: delivery reports it, not a start. */
function safeReseal(box: Pick<SecretBox, 'reseal'>, sealed: string): string | null {
  try {
    return box.reseal(sealed);
  } catch {
    return null;
  }
}
