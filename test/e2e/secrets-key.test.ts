import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/free-port.js';
import { secretsKeyId } from '../../src/secrets-key.js';
import { createSecretBox } from '../../src/webhooks/secret-box.js';
import { stack } from '../support/api.js';
import { createDatabase, dropDatabase, startInstance, type Instance } from '../support/instance.js';
import { startReceiver } from '../support/receiver.js';
import { spawnService } from '../support/service-process.js';

/**
 * SECRETS_KEY keys the hashes suppressions and the audit trail keep (src/user-hash.ts) and seals
 * webhook secrets. A rotation keeps what the old key made reachable (SECRETS_KEY_PREVIOUS), and
 * processes of one installation never run with keys that disagree (src/secrets-key-agreement.ts).
 * Each case has a database of its own and api processes only (no worker: a batch's answer counts
 * its suppressed items before any analysis).
 */
const KEY_A = '1a'.repeat(32);
const KEY_B = '2b'.repeat(32);
const TASK_QUEUE = `secrets-key-${process.pid}`;
const PREFIX = `secrets_key_${process.pid}`;
const TEXT = 'The new dashboard is great, thanks!';
const databases: string[] = [];
const running: Instance[] = [];
const dirs: string[] = [];

async function database(name: string): Promise<string> {
  databases.push(`${PREFIX}_${name}`);
  return createDatabase(`${PREFIX}_${name}`);
}

async function api(url: string, env: Record<string, string>): Promise<Instance> {
  const i = await startInstance(url, TASK_QUEUE, { role: 'api', env });
  running.push(i);
  return i;
}

async function stop(i: Instance): Promise<void> {
  await i.stop();
  running.splice(running.indexOf(i), 1);
}

function tempDir(name: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  dirs.push(dir);
  return dir;
}

async function rows(url: string, sql: string, params: unknown[] = []): Promise<any[]> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return (await db.query(sql, params)).rows;
  } finally {
    await db.end();
  }
}

/**
 * Starts an api process on `url` and answers whether it became ready or exited first, with its
 * log: a refused start must end by itself, with a sentence an operator can act on.
 */
async function tryStart(url: string, env: Record<string, string>): Promise<{ outcome: string; log: string }> {
  const dir = tempDir('secrets-key-start');
  const logFile = path.join(dir, 'service.log');
  const p = spawnService(
    'api',
    {
      DATABASE_URL: url,
      TEMPORAL_ADDRESS: stack().temporalAddress,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      PORT: String(await freePort()),
      GRPC_PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATA_DIR: path.join(dir, 'data'),
      LOG_LEVEL: 'info',
      ...env,
    },
    logFile,
  );
  const outcome = await p.ready.then(
    () => 'ready',
    async () => `exited with ${await p.exited}`,
  );
  if (outcome === 'ready') {
    p.proc.kill('SIGTERM');
    await p.exited;
  }
  return { outcome, log: readFileSync(logFile, 'utf8') };
}

interface Tenant {
  key: string;
  projectId: number;
}

async function tenant(i: Instance): Promise<Tenant> {
  const t = await i.call('POST', '/admin/v1/tenants', { body: { name: 'secrets-key' } });
  expect(t.status).toBe(201);
  const p = await i.call('POST', '/api/v1/projects', { key: t.body.api_key, body: { name: 'p' } });
  expect(p.status).toBe(201);
  return { key: t.body.api_key, projectId: p.body.id };
}

async function eraseAndSuppress(i: Instance, t: Tenant, userId: string): Promise<void> {
  const r = await i.call('DELETE', `/api/v1/profiles/${userId}?project_id=${t.projectId}&suppress=true`, {
    key: t.key,
  });
  expect(r.status).toBe(202);
  expect(r.body.suppressed).toBe(true);
}

async function submit(i: Instance, t: Tenant, userIds: string[]): Promise<{ accepted: number; suppressed: number }> {
  const users = userIds.map((user_id) => ({ user_id, text: TEXT }));
  const r = await i.call('POST', '/api/v1/users', { key: t.key, body: { project_id: t.projectId, users } });
  expect(r.status).toBe(202);
  return { accepted: r.body.accepted, suppressed: r.body.suppressed ?? 0 };
}

afterAll(async () => {
  for (const i of [...running]) await stop(i);
  for (const d of databases) await dropDatabase(d).catch(() => undefined);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('SECRETS_KEY rotation', () => {
  it('keeps suppressions, lifts and the audit trail made under the old key, listed in SECRETS_KEY_PREVIOUS', async () => {
    const url = await database('rotation');
    const underA = await api(url, { SECRETS_KEY: KEY_A });
    const t = await tenant(underA);
    for (const who of ['seen-again', 'lifted', 'never-seen']) await eraseAndSuppress(underA, t, who);
    const receiver = await startReceiver();
    const pipeline = await underA.call('POST', `/projects/${t.projectId}/pipelines`, {
      key: t.key,
      body: { name: 'm' },
    });
    const hook = await underA.call('POST', `/projects/${t.projectId}/pipelines/${pipeline.body.id}/webhooks`, {
      key: t.key,
      body: { url: receiver.url, secret: 'whsec-sealed-under-a' },
    });
    await receiver.close();
    expect(hook.status).toBe(201);
    expect(await submit(underA, t, ['seen-again', 'fresh-1'])).toEqual({ accepted: 1, suppressed: 1 });
    await stop(underA);

    const underB = await api(url, { SECRETS_KEY: KEY_B, SECRETS_KEY_PREVIOUS: KEY_A });
    // A batch naming an id suppressed under the old key still leaves it out.
    expect(await submit(underB, t, ['seen-again', 'fresh-2'])).toEqual({ accepted: 1, suppressed: 1 });
    // The audit trail finds the old erasures by the id.
    const trail = await underB.call('GET', `/api/v1/erasures?project_id=${t.projectId}&user_id=never-seen`, {
      key: t.key,
    });
    expect(trail.status).toBe(200);
    expect(trail.body.erasures).toHaveLength(1);
    expect(trail.body.erasures[0]).toMatchObject({ kind: 'erasure', suppressed: true });
    // A suppression made under the old key can be lifted (once), and the id is processed again.
    const lift = () => underB.call('DELETE', `/api/v1/suppressions/lifted?project_id=${t.projectId}`, { key: t.key });
    expect((await lift()).status).toBe(204);
    expect((await lift()).status).toBe(404);
    expect(await submit(underB, t, ['lifted'])).toEqual({ accepted: 1, suppressed: 0 });
    // New suppressions are made under the new key.
    await eraseAndSuppress(underB, t, 'new-under-b');

    // Which key made each hash is stored; the id seen again was moved to the new key (so the old
    // key can be retired once no row needs it), the one never seen again still needs the old key.
    const [a, b] = [secretsKeyId(KEY_A), secretsKeyId(KEY_B)];
    const keyIds = await rows(url, 'SELECT key_id FROM suppressions WHERE project_id = $1 ORDER BY key_id', [
      t.projectId,
    ]);
    expect(keyIds.map((r) => r.key_id).sort()).toEqual([a, b, b].sort());
    const listed = await underB.call('GET', `/api/v1/suppressions?project_id=${t.projectId}`, { key: t.key });
    expect(listed.body.suppressions).toHaveLength(3);
    const audit = await rows(url, 'SELECT key_id FROM erasures WHERE project_id = $1 ORDER BY id', [t.projectId]);
    expect(audit.map((r) => r.key_id)).toEqual([a, a, a, b]);
    const installation = await rows(url, 'SELECT secrets_key_id FROM installation');
    expect(installation[0].secrets_key_id).toBe(b);
    // The webhook secret sealed under the old key was sealed again under the new one at the start.
    const [sealed] = await rows(url, 'SELECT secret_sealed FROM webhooks WHERE id = $1', [hook.body.id]);
    expect(createSecretBox(KEY_B).open(sealed.secret_sealed)).toBe('whsec-sealed-under-a');
    await stop(underB);

    // After the rotation, a process still given only the old key is refused, naming what to set.
    const old = await tryStart(url, { SECRETS_KEY: KEY_A });
    expect(old.outcome).toBe('exited with 1');
    expect(old.log).toContain(`SECRETS_KEY (key id ${a}) is not this installation's key (key id ${b})`);
    expect(old.log).toContain('SECRETS_KEY_PREVIOUS');
    // Nor may the old key be dropped while suppressions made with it remain.
    const dropped = await tryStart(url, { SECRETS_KEY: KEY_B });
    expect(dropped.outcome).toBe('exited with 1');
    expect(dropped.log).toContain(`1 suppressed user under key id ${a}: neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS`);
  });

  it('refuses a new key when the installation key is not listed in SECRETS_KEY_PREVIOUS', async () => {
    const url = await database('mismatch');
    const underA = await api(url, { SECRETS_KEY: KEY_A });
    const t = await tenant(underA);
    await eraseAndSuppress(underA, t, 'someone');
    await stop(underA);
    const wrong = await tryStart(url, { SECRETS_KEY: KEY_B });
    expect(wrong.outcome).toBe('exited with 1');
    expect(wrong.log).toContain(
      `SECRETS_KEY (key id ${secretsKeyId(KEY_B)}) is not this installation's key (key id ${secretsKeyId(KEY_A)})`,
    );
    // Nothing was voided: the installation's key still suppresses.
    const again = await api(url, { SECRETS_KEY: KEY_A });
    expect(await submit(again, t, ['someone'])).toEqual({ accepted: 0, suppressed: 1 });
  });
});

describe('generated keys (SECRETS_KEY unset)', () => {
  it('agree between processes of one DATA_DIR started at once, and a process with a key of its own is refused', async () => {
    const url = await database('generated');
    const shared = path.join(tempDir('secrets-key-shared'), 'data');
    // Started at once on a fresh DATA_DIR: both generate, one file wins and both use it.
    const [first, second] = await Promise.all([
      api(url, { SECRETS_KEY: '', DATA_DIR: shared }),
      api(url, { SECRETS_KEY: '', DATA_DIR: shared }),
    ]);
    const t = await tenant(first);
    await eraseAndSuppress(first, t, 'gen-user');
    expect(await submit(second, t, ['gen-user', 'gen-other'])).toEqual({ accepted: 1, suppressed: 1 });

    // Another DATA_DIR, on the same database: its generated key would not match these hashes.
    const elsewhere = await tryStart(url, { SECRETS_KEY: '' });
    expect(elsewhere.outcome).toBe('exited with 1');
    expect(elsewhere.log).toMatch(
      /SECRETS_KEY is not set: the key generated in \S+secrets\.key \(key id [0-9a-f]{16}\)/,
    );
    await stop(first);
    await stop(second);
  });
});
