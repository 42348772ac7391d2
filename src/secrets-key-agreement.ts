import type { Db } from './db/knex.js';
import type { Logger } from './observability/logger.js';
import { secretsKeyId, type SecretsKeys } from './secrets-key.js';

/**
 * Processes of one installation must agree on SECRETS_KEY: a suppression hashed by one api under
 * its key is invisible to another api with another key, and a webhook secret sealed by the api
 * cannot be opened by a worker with another key. Nothing in a hash or a sealed value says it was
 * made under a foreign key, so nothing would fail: suppressed users would silently come back.
 * So every process checks its keys against the database when it starts, and refuses to run when
 * they cannot read what the installation made.
 */
export class SecretsKeyMismatch extends Error {}

export type KeyDecision = 'record' | 'keep' | 'rotate' | 'refuse';

/**
 * What a starting process does with the key id the installation recorded: `record` its own when
 * none is (a new database, or the first start after migration 017), `keep` it when it is the
 * process's key, `rotate` to the process's key when the recorded one is among its previous keys
 * (SECRETS_KEY_PREVIOUS: the operator rotated, or rolls back), and `refuse` otherwise.
 */
export function decideKey(recorded: string | null, current: string, previous: readonly string[]): KeyDecision {
  if (recorded === null) return 'record';
  if (recorded === current) return 'keep';
  return previous.includes(recorded) ? 'rotate' : 'refuse';
}

const ROTATING = 'docs/operations.md, "Rotating SECRETS_KEY"';

/**
 * Checks and records the process's key under the installation row's lock, so processes starting
 * at once are checked one after the other (the first on a new database records its key, the
 * others are compared with it). Also refuses when suppressions made under a key no longer
 * configured remain: dropping it from SECRETS_KEY_PREVIOUS would silently lift them.
 */
export async function agreeOnSecretsKey(db: Db, keys: SecretsKeys, log: Logger): Promise<void> {
  const current = secretsKeyId(keys.current);
  const previous = keys.previous.map(secretsKeyId);
  await db.transaction(async (trx) => {
    const row = await trx('installation').forUpdate().first('secrets_key_id');
    if (!row) throw new Error('the installation table is empty: run the migrations (npm run migrate)');
    const recorded: string | null = row.secrets_key_id;
    const decision = decideKey(recorded, current, previous);
    if (decision === 'refuse') throw new SecretsKeyMismatch(mismatch(keys, current, recorded!));

    // Rows made before migration 017 (or by a process of the earlier version during a rolling
    // upgrade) name no key: they were made under the key in force then, the recorded one, or this
    // process's on the first start after 017. Naming it lets the check below refuse to drop a key
    // that still holds them; left null they would be lifted silently once the key is retired.
    const before = recorded ?? current;
    await trx('suppressions').whereNull('key_id').update({ key_id: before });
    await trx('erasures').whereNull('key_id').whereNotNull('user_hash').update({ key_id: before });
    const orphans = await keyIdsOfSuppressions(trx, [current, ...previous]);
    if (orphans.length > 0) {
      const list = orphans.map((o) => `${o.n} suppressed ${o.n === 1 ? 'user' : 'users'} under key id ${o.key_id}`);
      throw new SecretsKeyMismatch(
        `${list.join(', ')}: neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS holds that key, and without it ` +
          `they would no longer be suppressed. List it in SECRETS_KEY_PREVIOUS (${ROTATING}).`,
      );
    }
    if (decision === 'record' || decision === 'rotate') {
      await trx('installation').update({ secrets_key_id: current });
    }
    if (decision === 'rotate') {
      log.info('SECRETS_KEY rotated: new hashes and sealed secrets are made with it', { from: recorded, to: current });
    }
  });
}

function mismatch(keys: SecretsKeys, current: string, recorded: string): string {
  if (keys.generatedFile) {
    return (
      `SECRETS_KEY is not set: the key generated in ${keys.generatedFile} (key id ${current}) is not this ` +
      `installation's key (key id ${recorded}), which another process generated in its own DATA_DIR. ` +
      'Set SECRETS_KEY, the same on every process of the installation (the key is in the secrets.key of ' +
      `the process that started first) (${ROTATING}).`
    );
  }
  return (
    `SECRETS_KEY (key id ${current}) is not this installation's key (key id ${recorded}), which made its ` +
    'suppressed-user hashes and sealed webhook secrets. Give every process that key; to rotate to this one, ' +
    `list the installation's key in SECRETS_KEY_PREVIOUS (${ROTATING}).`
  );
}

/**
 * The key ids suppressions were made with, other than `known`, and how many rows each: a loose
 * scan of suppressions_key_id (one probe per distinct key id, a handful however many rows); only
 * the unknown ones, normally none, are counted.
 */
async function keyIdsOfSuppressions(trx: Db, known: string[]): Promise<{ key_id: string; n: number }[]> {
  const { rows } = await trx.raw(
    `WITH RECURSIVE k AS (
       (SELECT key_id FROM suppressions WHERE key_id IS NOT NULL ORDER BY key_id LIMIT 1)
       UNION ALL
       SELECT (SELECT s.key_id FROM suppressions s WHERE s.key_id > k.key_id ORDER BY s.key_id LIMIT 1)
         FROM k WHERE k.key_id IS NOT NULL
     )
     SELECT key_id FROM k WHERE key_id IS NOT NULL`,
  );
  const unknown = (rows as { key_id: string }[]).map((r) => r.key_id).filter((id) => !known.includes(id));
  const out = [];
  for (const id of unknown) {
    const [{ n }] = await trx('suppressions').where({ key_id: id }).count({ n: '*' });
    out.push({ key_id: id, n: Number(n) });
  }
  return out;
}
