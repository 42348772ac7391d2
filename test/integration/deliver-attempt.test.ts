import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { createLogger } from '../../src/logger.js';
import { deliverAttempt } from '../../src/webhooks/deliver-attempt.js';
import { testDatabaseUrl } from '../support/database.js';
import { insertEventFixture } from '../support/event-fixture.js';

/**
 * The delivery activity against the real database with private networks NOT allowed: no
 * connection is made to a private address, and the delivery row says why.
 */
describe('delivery activity SSRF guard', () => {
  let db: Db;
  let listener: net.Server;
  let connections = 0;
  let port = 0;
  let eventId = 0;
  let pipelineId = 0;

  beforeAll(async () => {
    db = createDb(testDatabaseUrl(), 2);
    listener = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    port = (listener.address() as net.AddressInfo).port;
    ({ pipelineId, eventId } = await insertEventFixture(db, 'ssrf'));
  });

  afterAll(async () => {
    listener.close();
    await db.destroy();
  });

  const targets = ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]', '2130706433'];

  it.each(targets)('refuses https://%s without connecting and records why', async (host) => {
    const [webhook] = await db('webhooks')
      .insert({ pipeline_id: pipelineId, url: `https://${host}:${port}/hook`, events: ['user_added', 'user_removed'] })
      .returning('id');
    const before = connections;
    const out = await deliverAttempt(
      { db, openSecret: (s) => s, timeoutMs: 2_000, allowPrivateNetworks: false, log: createLogger('silent') },
      { workflowId: `test-ssrf-${webhook.id}`, eventId, webhookId: webhook.id, attempt: 1 },
    );
    expect(out.outcome).toBe('failed');
    const row = await db('webhook_deliveries').where({ webhook_id: webhook.id }).first();
    expect(row).toMatchObject({ status: 'failed', status_code: 0 });
    expect(row.response_body).toMatch(/refused: .*(loopback|private)/);
    expect(connections).toBe(before);
    // Retrying the same attempt does not post again nor add a row.
    await deliverAttempt(
      { db, openSecret: (s) => s, timeoutMs: 2_000, allowPrivateNetworks: false, log: createLogger('silent') },
      { workflowId: `test-ssrf-${webhook.id}`, eventId, webhookId: webhook.id, attempt: 1 },
    );
    expect(
      await db('webhook_deliveries').where({ webhook_id: webhook.id }).count<{ count: string }[]>('* as count'),
    ).toEqual([{ count: 1 }]);
  });
});
