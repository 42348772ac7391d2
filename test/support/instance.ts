import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/free-port.js';
import { stack } from './api.js';
import { checkAnswer } from './contract.js';
import { spawnService, type ServiceProcess } from './service-process.js';

/**
 * A second (third, ...) installation of the service: its own database on the stack's PostgreSQL
 * server, the stack's Temporal and namespace, and the same TEMPORAL_TASK_QUEUE setting, as a
 * re-created database, a restored backup or staging beside production would have.
 */
export interface Instance {
  base: string;
  grpcAddress: string;
  databaseUrl: string;
  proc: ServiceProcess;
  /** The instance's stdout and stderr (JSON log lines). */
  logFile: string;
  call<T = any>(
    method: string,
    path: string,
    opts?: { key?: string; body?: unknown },
  ): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

const adminUrl = () => stack().databaseUrl;

/** A new empty database (or a copy of `template`, which must have no connections) on the stack's server. */
export async function createDatabase(name: string, template?: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/** `role: 'api'` runs no worker: batches stay in flight and no delivery is attempted. `env` overrides settings. */
export async function startInstance(
  databaseUrl: string,
  taskQueue: string,
  opts: { role?: 'all' | 'api'; env?: Record<string, string> } = {},
): Promise<Instance> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'instance-'));
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  const proc = spawnService(
    opts.role ?? 'all',
    {
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: stack().temporalAddress,
      TEMPORAL_TASK_QUEUE: taskQueue,
      PORT: String(httpPort),
      GRPC_PORT: String(grpcPort),
      HOST: '127.0.0.1',
      ADMIN_TOKEN: stack().adminToken,
      SECRETS_KEY: 'ef'.repeat(32),
      WEBHOOK_RETRY_SCHEDULE: '1s,2s,2s,2s,2s',
      WEBHOOK_TIMEOUT_MS: '3000',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      NODE_EXTRA_CA_CERTS: stack().caPath,
      DATA_DIR: path.join(dir, 'data'),
      FAIRNESS_OFF: 'nice',
      LOG_LEVEL: 'info',
      ...opts.env,
    },
    path.join(dir, 'service.log'),
  );
  await proc.ready;
  const base = `http://127.0.0.1:${httpPort}`;
  return {
    base,
    grpcAddress: `127.0.0.1:${grpcPort}`,
    databaseUrl,
    proc,
    logFile: path.join(dir, 'service.log'),
    async call(method, p, opts = {}) {
      const headers: Record<string, string> = { 'X-Admin-Token': stack().adminToken };
      if (opts.key) headers['X-API-Key'] = opts.key;
      if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
      const res = await fetch(base + p, {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
      const text = await res.text();
      const body = text ? JSON.parse(text) : undefined;
      await checkAnswer(base, {
        method,
        path: p,
        status: res.status,
        contentType: res.headers.get('content-type'),
        allow: res.headers.get('allow'),
        body,
      });
      return { status: res.status, body };
    },
    async stop() {
      if (proc.proc.exitCode === null && proc.proc.signalCode === null) proc.proc.kill('SIGTERM');
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
