import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/free-port.js';
import { stack, waitFor } from '../support/api.js';
import { HEALTH_SERVICES, healthClient } from '../support/grpc-health.js';
import type { ServiceProcess } from '../support/service-process.js';
import { startStackApi } from '../support/stack-api.js';

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
 * far as the api can tell. The processes being its own, the last two tests also shut them down.
 * (Temporal stopped for real: test/chaos/grpc-health-temporal.test.ts.)
 */
describe('gRPC health follows /readyz', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'grpc-health-'));
  const relay = cuttableRelay(new URL(stack().databaseUrl));
  let api: ServiceProcess;
  let base: string;
  let health: Awaited<ReturnType<typeof healthClient>>;
  const all = () => health.all();
  const readyz = async () => (await fetch(`${base}/readyz`)).status;

  const dbUrl = new URL(stack().databaseUrl);

  /** An api process of this file's own (database through the relay), ready, with a health client watching. */
  async function startOwnApi(name: string) {
    // Its database through the relay, so the test can cut it off.
    const { proc, base, grpcAddress } = await startStackApi(dir, name, { DATABASE_URL: dbUrl.toString() });
    const client = await healthClient(grpcAddress);
    client.watch();
    return { proc, base, health: client };
  }

  beforeAll(async () => {
    const relayPort = await freePort();
    await new Promise<void>((resolve) => relay.server.listen(relayPort, '127.0.0.1', resolve));
    dbUrl.hostname = '127.0.0.1';
    dbUrl.port = String(relayPort);
    ({ proc: api, base, health } = await startOwnApi('api'));
  });

  afterAll(async () => {
    health?.close();
    if (api && api.proc.exitCode === null && api.proc.signalCode === null) api.proc.kill('SIGTERM');
    await api?.exited;
    relay.server.close();
    relay.cut();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports NOT_SERVING for the server and every service while the database is down, and SERVING again after', async () => {
    expect(await readyz()).toBe(200);
    expect(await all()).toEqual(HEALTH_SERVICES.map(() => 'SERVING'));

    relay.cut();
    const started = Date.now();
    await waitFor('NOT_SERVING', async () => (await all()).every((s) => s === 'NOT_SERVING'), 30_000);
    console.log(`gRPC health NOT_SERVING ${Date.now() - started} ms after the database went away`);
    const down = await fetch(`${base}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ database: false });
    await waitFor('the watcher to see NOT_SERVING', async () => health.watched.includes('NOT_SERVING'), 5_000);

    relay.restore();
    const back = Date.now();
    await waitFor('SERVING', async () => (await all()).every((s) => s === 'SERVING'), 30_000);
    console.log(`gRPC health SERVING ${Date.now() - back} ms after the database came back`);
    expect(await readyz()).toBe(200);
    await waitFor(
      'the watcher to see SERVING again',
      async () => health.watched.lastIndexOf('SERVING') > health.watched.indexOf('NOT_SERVING'),
      5_000,
    );
    expect(health.watched[0]).toBe('SERVING');
  });

  it('on SIGTERM tells a watching client NOT_SERVING, then exits once the client has gone', async () => {
    await waitFor('SERVING', async () => (await all()).every((s) => s === 'SERVING'), 30_000);
    const heard = health.watched.length;
    api.proc.kill('SIGTERM');
    await waitFor('the watcher to hear NOT_SERVING', async () => health.watched.slice(heard).includes('NOT_SERVING'));
    expect(health.watched.slice(heard)).toEqual(['NOT_SERVING']);
    // A load balancer that hears NOT_SERVING drains the process and closes its stream; the
    // graceful shutdown then ends and the process exits cleanly.
    health.close();
    expect(await api.exited).toBe(0);
  });

  it('a second SIGTERM ends a shutdown that still waits for a watching client', async () => {
    const other = await startOwnApi('api-2');
    try {
      await waitFor('SERVING', async () => (await other.health.all()).every((s) => s === 'SERVING'), 30_000);
      other.proc.proc.kill('SIGTERM');
      await waitFor('the watcher to hear NOT_SERVING', async () => other.health.watched.includes('NOT_SERVING'));
      // The Watch stream is still open, so the graceful shutdown is still waiting for it.
      expect([other.proc.proc.exitCode, other.proc.proc.signalCode]).toEqual([null, null]);
      other.proc.proc.kill('SIGTERM');
      expect(await other.proc.exited).toBe(128 + 15);
    } finally {
      other.health.close();
      if (other.proc.proc.exitCode === null && other.proc.proc.signalCode === null) other.proc.proc.kill('SIGKILL');
    }
  });

  it('ends a graceful shutdown that a Watch client holds open after the drain time, with exit 0', async () => {
    const other = await startOwnApi('api-3');
    try {
      await waitFor('SERVING', async () => (await other.health.all()).every((s) => s === 'SERVING'), 30_000);
      other.proc.proc.kill('SIGTERM');
      await waitFor('the watcher to hear NOT_SERVING', async () => other.health.watched.includes('NOT_SERVING'));
      // The stream stays open: after DRAIN_MS the server cancels it and the other stop steps run.
      expect(await other.proc.exited).toBe(0);
    } finally {
      other.health.close();
      if (other.proc.proc.exitCode === null && other.proc.proc.signalCode === null) other.proc.proc.kill('SIGKILL');
    }
  });
});
