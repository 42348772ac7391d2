import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { credentials, loadPackageDefinition, type ClientReadableStream } from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/free-port.js';
import { stack, waitFor } from '../support/api.js';
import { spawnService, type ServiceProcess } from '../support/service-process.js';

const HEALTH_PROTO = path.join(
  path.dirname(createRequire(import.meta.url).resolve('grpc-health-check/package.json')),
  'proto/health/v1/health.proto',
);
const SERVICES = [
  '',
  ...['UsersService', 'ProfilesService', 'ProjectsService', 'SegmentsService', 'WebhooksService'].map(
    (s) => `profiling.v1.${s}`,
  ),
];

/** A TCP relay to PostgreSQL that can be cut (every connection dropped, new ones refused) and restored. */
function cuttableRelay(target: URL) {
  const sockets = new Set<net.Socket>();
  let down = false;
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    if (down) return void client.destroy();
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  return {
    server,
    cut() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      down = false;
    },
  };
}

/**
 * The shared stack's PostgreSQL may be external, so this file runs its own api process whose
 * database connection goes through a relay the test can cut: that is PostgreSQL going away, as
 * far as the api can tell.
 */
describe('gRPC health follows /readyz', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'grpc-health-'));
  const relay = cuttableRelay(new URL(stack().databaseUrl));
  let api: ServiceProcess;
  let base: string;
  let health: any;
  let watch: ClientReadableStream<{ status: string }>;
  const watched: string[] = [];

  const check = (service: string) =>
    new Promise<string>((resolve, reject) =>
      health.Check({ service }, { deadline: Date.now() + 2_000 }, (err: Error | null, r: { status: string }) =>
        err ? reject(err) : resolve(r.status),
      ),
    );
  const all = () => Promise.all(SERVICES.map(check));
  const readyz = async () => (await fetch(`${base}/readyz`)).status;

  beforeAll(async () => {
    const relayPort = await freePort();
    await new Promise<void>((resolve) => relay.server.listen(relayPort, '127.0.0.1', resolve));
    const dbUrl = new URL(stack().databaseUrl);
    dbUrl.hostname = '127.0.0.1';
    dbUrl.port = String(relayPort);
    const [httpPort, grpcPort] = [await freePort(), await freePort()];
    api = spawnService(
      'api',
      {
        DATABASE_URL: dbUrl.toString(),
        TEMPORAL_ADDRESS: stack().temporalAddress,
        TEMPORAL_TASK_QUEUE: stack().taskQueue,
        PORT: String(httpPort),
        GRPC_PORT: String(grpcPort),
        HOST: '127.0.0.1',
        SECRETS_KEY: 'ef'.repeat(32),
        DATA_DIR: path.join(dir, 'data'),
        LOG_LEVEL: 'info',
      },
      path.join(dir, 'api.log'),
    );
    await api.ready;
    base = `http://127.0.0.1:${httpPort}`;
    const def = await protoLoader.load(HEALTH_PROTO, { keepCase: true, enums: String });
    const Health = (loadPackageDefinition(def) as any).grpc.health.v1.Health;
    health = new Health(`127.0.0.1:${grpcPort}`, credentials.createInsecure());
    watch = health.Watch({ service: '' });
    watch.on('data', (m: { status: string }) => watched.push(m.status));
    watch.on('error', () => undefined);
  });

  afterAll(async () => {
    watch?.cancel();
    health?.close();
    if (api && api.proc.exitCode === null && api.proc.signalCode === null) api.proc.kill('SIGTERM');
    await api?.exited;
    relay.server.close();
    relay.cut();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports NOT_SERVING for the server and every service while the database is down, and SERVING again after', async () => {
    expect(await readyz()).toBe(200);
    expect(await all()).toEqual(SERVICES.map(() => 'SERVING'));

    relay.cut();
    const started = Date.now();
    await waitFor('NOT_SERVING', async () => (await all()).every((s) => s === 'NOT_SERVING'), 30_000);
    console.log(`gRPC health NOT_SERVING ${Date.now() - started} ms after the database went away`);
    const down = await fetch(`${base}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ database: false });
    await waitFor('the watcher to see NOT_SERVING', async () => watched.includes('NOT_SERVING'), 5_000);

    relay.restore();
    const back = Date.now();
    await waitFor('SERVING', async () => (await all()).every((s) => s === 'SERVING'), 30_000);
    console.log(`gRPC health SERVING ${Date.now() - back} ms after the database came back`);
    expect(await readyz()).toBe(200);
    await waitFor(
      'the watcher to see SERVING again',
      async () => watched.lastIndexOf('SERVING') > watched.indexOf('NOT_SERVING'),
      5_000,
    );
    expect(watched[0]).toBe('SERVING');
  });
});
