import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { migrateLatest } from '../../src/db/migrate.js';
import { createLogger } from '../../src/observability/logger.js';
import { agreeOnSecretsKey, SecretsKeyMismatch } from '../../src/secrets-key-agreement.js';
import { secretsKeyId } from '../../src/secrets-key.js';
import { ownDatabase } from '../support/database.js';

const [A, B, C] = ['1a', '2b', '3c'].map((h) => h.repeat(32));
const log = createLogger('silent', {});

/**
 * The start check of src/secrets-key-agreement.ts on a database of its own, migrated from empty:
 * processes starting at once with different keys, a rotation, and a key dropped while
 * suppressions still need it.
 */
describe('SECRETS_KEY agreement at start', () => {
  let database: Awaited<ReturnType<typeof ownDatabase>>;
  let db: Db;
  let projectId: number;
  const recorded = async () => (await db('installation').first('secrets_key_id')).secrets_key_id;

  beforeAll(async () => {
    database = await ownDatabase('profiling_secrets_key');
    db = createDb(database.url, 4);
    await migrateLatest(db);
    const [tenant] = await db('tenants').insert({ name: 'keys' }).returning('id');
    [{ id: projectId }] = await db('projects').insert({ tenant_id: tenant.id, name: 'keys' }).returning('id');
  });

  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  it('lets exactly one of two processes starting at once with different keys record its key', async () => {
    const results = await Promise.allSettled([
      agreeOnSecretsKey(db, { current: A, previous: [] }, log),
      agreeOnSecretsKey(db, { current: B, previous: [], generatedFile: '/elsewhere/secrets.key' }, log),
    ]);
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(SecretsKeyMismatch);
    const winner = results[0].status === 'fulfilled' ? A : B;
    expect(await recorded()).toBe(secretsKeyId(winner));
    // The loser keeps being refused; the winner's key starts again.
    const loser = winner === A ? B : A;
    await expect(agreeOnSecretsKey(db, { current: loser, previous: [] }, log)).rejects.toThrow(
      `(key id ${secretsKeyId(loser)}) is not this installation's key (key id ${secretsKeyId(winner)})`,
    );
    await agreeOnSecretsKey(db, { current: winner, previous: [] }, log);
    // From here on the installation's key is A.
    await db('installation').update({ secrets_key_id: secretsKeyId(A) });
  });

  it('follows a rotation to a key that lists the installation key as previous', async () => {
    await db('suppressions').insert({ project_id: projectId, user_hash: 'h-a', key_id: secretsKeyId(A) });
    await agreeOnSecretsKey(db, { current: B, previous: [A] }, log);
    expect(await recorded()).toBe(secretsKeyId(B));
    // A process still on A alone is refused now.
    await expect(agreeOnSecretsKey(db, { current: A, previous: [] }, log)).rejects.toThrow(/SECRETS_KEY_PREVIOUS/);
  });

  it('refuses to start without a key that stored suppressions were made with, and counts them', async () => {
    await db('suppressions').insert([
      { project_id: projectId, user_hash: 'h-c1', key_id: secretsKeyId(C) },
      { project_id: projectId, user_hash: 'h-c2', key_id: secretsKeyId(C) },
    ]);
    const err = await agreeOnSecretsKey(db, { current: B, previous: [A] }, log).catch((e: Error) => e);
    expect(err).toBeInstanceOf(SecretsKeyMismatch);
    expect((err as Error).message).toContain(`2 suppressed users under key id ${secretsKeyId(C)}`);
    await expect(agreeOnSecretsKey(db, { current: B, previous: [] }, log)).rejects.toThrow(
      `1 suppressed user under key id ${secretsKeyId(A)}`,
    );
    await agreeOnSecretsKey(db, { current: B, previous: [A, C] }, log);
  });

  it('names the installation key on rows made before key ids were kept, so retiring it is refused', async () => {
    // A suppression of the earlier version (no key id), made under the installation's key B.
    await db('suppressions').insert({ project_id: projectId, user_hash: 'h-before-017', key_id: null });
    await agreeOnSecretsKey(db, { current: B, previous: [A, C] }, log);
    const named = await db('suppressions').where({ user_hash: 'h-before-017' }).first('key_id');
    expect(named.key_id).toBe(secretsKeyId(B));
    // Rotated to a new key D, then B dropped from the previous keys: its suppressions would be lifted.
    const D = '4d'.repeat(32);
    await agreeOnSecretsKey(db, { current: D, previous: [B, A, C] }, log);
    await expect(agreeOnSecretsKey(db, { current: D, previous: [A, C] }, log)).rejects.toThrow(
      `suppressed user under key id ${secretsKeyId(B)}`,
    );
  });
});
