import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { call, newTenant, stack, withDb, type Tenant } from '../support/api.js';
import { checkAnswer } from '../support/contract.js';
import { grpcClients, keyMetadata, rpc } from '../support/grpc.js';

/**
 * Ids stored before ingest refused `.` and `..` (issue 34) can still be exported and erased
 * (issue 44): over HTTP as `%2E` / `%2E%2E` in the path, which fetch and browsers would resolve,
 * so the requests go out as written through node:http; over gRPC in the message.
 */

/** A request whose target is sent exactly as written (no client-side dot-segment resolution). */
function sendAsWritten(method: string, target: string, key: string): Promise<{ status: number; body: any }> {
  const base = new URL(stack().gatewayUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: base.hostname, port: base.port, method, path: target, headers: { 'X-API-Key': key } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', async () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const body = text ? JSON.parse(text) : undefined;
          const answer = { status: res.statusCode ?? 0, body };
          try {
            await checkAnswer(stack().gatewayUrl, {
              method,
              path: target,
              status: answer.status,
              contentType: res.headers['content-type'] ?? null,
              allow: (res.headers.allow as string | undefined) ?? null,
              body,
            });
            resolve(answer);
          } catch (err) {
            reject(err);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A user stored as ingest once did: a profile, two messages and the batch items they came from. */
async function storeUser(t: Tenant, userId: string): Promise<void> {
  await withDb(async (db) => {
    const user = await db.query(
      `INSERT INTO users (project_id, user_id, source_label, message_count, attributes)
       VALUES ($1, $2, 'api', 2, '{"plan": "pro"}') RETURNING id`,
      [t.projectId, userId],
    );
    const source = await db.query(
      `INSERT INTO sources (project_id, label, user_count, workflow_started_at, completed_at, processed, failed)
       VALUES ($1, 'api', 2, now(), now(), 2, 0) RETURNING id`,
      [t.projectId],
    );
    for (const idx of [0, 1]) {
      const text = `said by ${userId} #${idx}`;
      await db.query(
        `INSERT INTO source_items (source_id, idx, user_id, text, written_at) VALUES ($1, $2, $3, $4, now())`,
        [source.rows[0].id, idx, userId, text],
      );
      await db.query(
        `INSERT INTO messages (user_pk, source_id, item_idx, written_at, source_label, text, sentiment, topics,
                               intentions, embedding, churn_words)
         VALUES ($1, $2, $3, now() - make_interval(mins => $4), 'api', $5, -0.5, '{billing}', '{}', '{0.6,0.8}', '{}')`,
        [user.rows[0].id, source.rows[0].id, idx, 10 - idx, text],
      );
    }
  });
}

/** What the database still holds of the id, by table. */
async function rowsOf(t: Tenant, userId: string) {
  return withDb(async (db) => {
    const count = async (sql: string) => Number((await db.query(sql, [t.projectId, userId])).rows[0].count);
    return {
      users: await count('SELECT count(*) FROM users WHERE project_id = $1 AND user_id = $2'),
      messages: await count(
        'SELECT count(*) FROM messages m JOIN users u ON u.id = m.user_pk WHERE u.project_id = $1 AND u.user_id = $2',
      ),
      items: await count(
        `SELECT count(*) FROM source_items si JOIN sources s ON s.id = si.source_id
          WHERE s.project_id = $1 AND (si.user_id = $2 OR si.text LIKE '%by ' || $2 || ' #%')`,
      ),
    };
  });
}

describe('user ids "." and ".." stored before they were refused', () => {
  it('are exported and erased over HTTP (percent-encoded in the path) and erased over gRPC', async () => {
    const t = await newTenant('dot-ids');
    await storeUser(t, '..');
    await storeUser(t, '.');
    expect(await rowsOf(t, '..')).toEqual({ users: 1, messages: 2, items: 2 });

    const exported = await sendAsWritten('GET', `/api/v1/profiles/%2E%2E/export?project_id=${t.projectId}`, t.key);
    expect(exported.status, JSON.stringify(exported.body)).toBe(200);
    expect(exported.body).toMatchObject({ user_id: '..', profile: { user_id: '..' }, attributes: { plan: 'pro' } });
    expect(exported.body.messages.map((m: { text: string }) => m.text)).toEqual(['said by .. #0', 'said by .. #1']);

    const erased = await sendAsWritten(
      'DELETE',
      `/api/v1/profiles/%2E%2E?project_id=${t.projectId}&suppress=true`,
      t.key,
    );
    expect(erased.status, JSON.stringify(erased.body)).toBe(202);
    expect(erased.body.counts).toMatchObject({ messages: 2, batch_items: 2, profiles: 1 });
    expect(await rowsOf(t, '..')).toEqual({ users: 0, messages: 0, items: 0 });
    // The audit trail finds it by id, and its suppression is lifted by the same path.
    const trail = await call('GET', `/api/v1/erasures?project_id=${t.projectId}&user_id=..`, { key: t.key });
    expect(trail.body.erasures.map((e: { id: string }) => e.id)).toEqual([erased.body.id]);
    expect((await sendAsWritten('DELETE', `/api/v1/suppressions/%2E%2E?project_id=${t.projectId}`, t.key)).status).toBe(
      204,
    );

    // '.' over gRPC: the id travels in the message, no path to resolve.
    const { profiles } = grpcClients();
    const r = await rpc(
      profiles,
      'deleteProfile',
      { projectId: t.projectId, userId: '.', suppress: false },
      keyMetadata(t.key),
    );
    expect(r.erasure).toMatchObject({ state: 'completed', counts: { messages: 2, batchItems: 2, profiles: 1 } });
    expect(await rowsOf(t, '.')).toEqual({ users: 0, messages: 0, items: 0 });
    // Gone: a second export of either is 404.
    for (const encoded of ['%2E', '%2E%2E']) {
      const again = await sendAsWritten('GET', `/api/v1/profiles/${encoded}/export?project_id=${t.projectId}`, t.key);
      expect(again.status, encoded).toBe(404);
      expect(again.body.error.message).toMatch(/user/);
    }
  });
});
