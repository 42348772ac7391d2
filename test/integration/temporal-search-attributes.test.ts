import { createUserHasher } from '../../src/user-hash.js';
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Logger } from '../../src/observability/logger.js';
import { createDb } from '../../src/db/knex.js';
import { readInstallationId } from '../../src/db/installation.js';
import { startApi } from '../../src/roles/api.js';
import { resolveTemporalCli } from '../../src/dev-hosting/temporal-binaries.js';
import { startTemporalDevServer, type DevServer } from '../../src/dev-hosting/dev-server.js';
import { registerNamespace } from '../../src/temporal/namespace.js';
import { createTemporalClient } from '../../src/temporal/client.js';
import { createStarters } from '../../src/temporal/starters.js';
import { SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes.js';
import { ensureSearchAttributes, INDEXED_TYPE } from '../../src/temporal/ensure-search-attributes.js';
import { watchSearchAttributes } from '../../src/temporal/search-attribute-watch.js';
import { grpcCause } from '../../src/temporal/grpc-cause.js';
import { createSecretBox } from '../../src/webhooks/secret-box.js';
import { DeliveryAttempt, ProjectId } from '../../workflows/search-attributes.js';
import { testDatabaseUrl } from '../support/database.js';
import { healthClient } from '../support/grpc-health.js';

/**
 * Issue 34: a Temporal server started without our search attributes, as an external one may be.
 * Before, `/readyz` said ready while every workflow start was refused and the relay logged only
 * "Failed to start Workflow". The api role runs here as main.ts wires it, on a real dev server,
 * once per namespace.
 */
const databaseUrl = testDatabaseUrl();
const db = createDb(databaseUrl, 4);
const dir = mkdtempSync(path.join(os.tmpdir(), 'search-attributes-'));
chmodSync(dir, 0o755);
let dev: DevServer;
let operator: Connection;
const stops: (() => Promise<unknown>)[] = [];

/** Where registering is refused, by the server's own rules (SQL visibility): */
const INT_SLOTS_TAKEN = 'int-slots-taken'; // its 3 Int slots are used, so DeliveryAttempt (Int) cannot be added
const TYPE_CONFLICT = 'type-conflict'; // DeliveryAttempt exists as a Keyword

beforeAll(async () => {
  dev = await startTemporalDevServer({ cliPath: await resolveTemporalCli(), dataDir: dir, searchAttributes: {} });
  stops.push(dev.stop);
  operator = await Connection.connect({ address: dev.address });
  stops.unshift(() => operator.close());
  const T = proto.temporal.api.enums.v1.IndexedValueType;
  for (const [namespace, attributes] of [
    [
      INT_SLOTS_TAKEN,
      { SlotA: T.INDEXED_VALUE_TYPE_INT, SlotB: T.INDEXED_VALUE_TYPE_INT, SlotC: T.INDEXED_VALUE_TYPE_INT },
    ],
    [TYPE_CONFLICT, { DeliveryAttempt: T.INDEXED_VALUE_TYPE_KEYWORD }],
  ] as const) {
    await registerNamespace(dev.address, namespace, {}, 60_000);
    await operator.operatorService.addSearchAttributes({ namespace, searchAttributes: attributes });
  }
}, 180_000);

afterAll(async () => {
  for (const stop of stops) await stop().catch(() => undefined);
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const customAttributes = async (namespace: string) =>
  (await operator.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};

/** The api role on one namespace, wired as main.ts wires it, with its log lines kept. */
async function apiOn(namespace: string) {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const log: Logger = {
    debug: (msg, fields) => lines.push({ level: 'debug', msg, fields }),
    info: (msg, fields) => lines.push({ level: 'info', msg, fields }),
    warn: (msg, fields) => lines.push({ level: 'warn', msg, fields }),
    error: (msg, fields) => lines.push({ level: 'error', msg, fields }),
    child: () => log,
  };
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    PORT: '0',
    GRPC_PORT: '0',
    TEMPORAL_ADDRESS: dev.address,
    TEMPORAL_NAMESPACE: namespace,
    DATA_DIR: dir,
  });
  const { client, connection } = await createTemporalClient(dev.address, namespace);
  stops.unshift(() => connection.close());
  const searchAttributes = watchSearchAttributes({ connection, namespace, wanted: SEARCH_ATTRIBUTES, log });
  stops.unshift(async () => searchAttributes.stop());
  const starters = createStarters(client, config, await readInstallationId(db), log);
  const box = createSecretBox('ab'.repeat(32));
  const userHash = createUserHasher('ab'.repeat(32));
  const api = await startApi({ config, db, databaseUrl, starters, box, userHash, log, client, searchAttributes });
  stops.unshift(api.stop);
  const readyz = async () => {
    const res = await fetch(`http://127.0.0.1:${api.httpPort}/readyz`);
    return { status: res.status, body: await res.json() };
  };
  return { client, starters, readyz, lines, grpc: `127.0.0.1:${api.grpcPort}` };
}

const delivery = () => ({ eventId: 1, eventUid: randomUUID(), webhookId: 1, pipelineId: 1, tenantId: 1 });

describe('a Temporal namespace without our search attributes', () => {
  it('gets them registered where the server allows it: ready, and workflows that set them start', async () => {
    const before = await customAttributes('default');
    expect(Object.keys(SEARCH_ATTRIBUTES).filter((name) => name in before)).toEqual([]);

    const api = await apiOn('default');
    expect(await api.readyz()).toEqual({ status: 200, body: { status: 'ready', database: true, temporal: true } });
    expect(await customAttributes('default')).toMatchObject(
      Object.fromEntries(Object.entries(SEARCH_ATTRIBUTES).map(([name, type]) => [name, INDEXED_TYPE[type]])),
    );
    // Keywords (the batch) and the Int (the delivery): starts the server refused before.
    const batch = await api.starters.startBatch({
      sourceId: 1,
      sourceUid: randomUUID(),
      projectId: 7,
      tenantId: 1,
      userCount: 1,
    });
    expect((await api.client.workflow.getHandle(batch).describe()).typedSearchAttributes.get(ProjectId)).toBe('7');
    const sent = await api.starters.startDelivery(delivery());
    expect((await api.client.workflow.getHandle(sent).describe()).typedSearchAttributes.get(DeliveryAttempt)).toBe(1);
    expect(api.lines).toContainEqual(
      expect.objectContaining({ msg: 'Temporal search attributes registered', level: 'info' }),
    );
  });

  it.each([
    [INT_SLOTS_TAKEN, /missing DeliveryAttempt \(Int\): registering refused \(INVALID_ARGUMENT: .*type Int/],
    [TYPE_CONFLICT, /DeliveryAttempt is Keyword, the workflows set Int/],
  ])(
    'in %s, where registering cannot succeed: not ready, with the reason, logged, and the start failure says why',
    async (namespace, reason) => {
      const api = await apiOn(namespace);
      const ready = await api.readyz();
      expect(ready).toMatchObject({ status: 503, body: { status: 'not ready', database: true, temporal: false } });
      expect(ready.body.reasons.temporal).toMatch(reason);
      // The Keywords were registered all the same: only what cannot be is named.
      expect(ready.body.reasons.temporal).not.toMatch(/ProjectId|SourceId|EventId/);
      expect(await customAttributes(namespace)).toMatchObject({ ProjectId: INDEXED_TYPE.Keyword });
      expect(api.lines).toContainEqual(
        expect.objectContaining({
          level: 'error',
          msg: 'Temporal namespace lacks search attributes: workflows that set them cannot start',
          fields: expect.objectContaining({ reason: expect.stringMatching(reason) }),
        }),
      );

      // gRPC health follows /readyz.
      const health = await healthClient(api.grpc);
      try {
        await expect.poll(() => health.check(''), { timeout: 30_000 }).toBe('NOT_SERVING');
      } finally {
        health.close();
      }

      // What the relay now logs beside "Failed to start Workflow": the server's own reason.
      const err = await api.starters.startDelivery(delivery()).catch((e: unknown) => e);
      expect((err as Error).message).toBe('Failed to start Workflow');
      expect(grpcCause(err)).toMatch(/^INVALID_ARGUMENT: .*DeliveryAttempt/);
    },
  );

  it('says so when the namespace itself is missing (the service creates none on an external server)', async () => {
    expect(await ensureSearchAttributes(operator, 'no-such-namespace', SEARCH_ATTRIBUTES)).toEqual({
      registered: [],
      answered: true,
      problem: expect.stringMatching(/namespace "no-such-namespace": NOT_FOUND/),
    });
  });
});
