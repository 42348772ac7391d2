/**
 * The SSRF matrix against the delivery activity, with private networks NOT allowed: for every
 * forbidden target no connection is made (TCP listeners on 127.0.0.1 and ::1 count connections, and
 * every socket this process opens is recorded), and the delivery row says why.
 *
 * Redirects need an allowed receiver that answers: an HTTPS listener on 127.0.0.1 whose certificate
 * names `public.test`, reached through the activity's `resolveTarget` seam (the guard treats that
 * one name as a public address, everything else goes through the real check). Its certificate
 * must be trusted, and NODE_EXTRA_CA_CERTS is only read when a process starts, so those attempts
 * run the activity in a child `node --import tsx` (as src/webhooks/http-attempt.test.ts does).
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDb, type Db } from '../../src/db/knex.js';
import { createLogger } from '../../src/observability/logger.js';
import { deliverAttempt, type DeliverAttemptOutput, type DeliverDeps } from '../../src/webhooks/deliver-attempt.js';
import { resolveAndCheck, type LookupAll } from '../../src/webhooks/ssrf.js';
import { testDatabaseUrl } from '../support/database.js';
import { insertEventFixture } from '../support/event-fixture.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const moduleUrl = (p: string) => new URL(`../../src/${p}`, import.meta.url).href;

/** A fake DNS for names that must resolve to private addresses without depending on the machine's resolver. */
const FAKE_DNS: Record<string, string[]> = {
  'intranet.test': ['10.1.2.3'],
  'metadata.test': ['169.254.169.254'],
  'loopback6.test': ['::1'],
  'mixed.test': ['93.184.216.34', '192.168.0.7'],
};
const fakeLookup: LookupAll = async (host) => {
  const found = FAKE_DNS[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
};

/** Counts connections; listens on both loopback families with one port where the machine has ::1. */
function connectionCounter() {
  const state = { v4: 0, v6: 0 };
  const counting = (family: 'v4' | 'v6') =>
    net.createServer((socket) => {
      state[family]++;
      socket.destroy();
    });
  const v4 = counting('v4');
  const v6 = counting('v6');
  return { state, v4, v6, total: () => state.v4 + state.v6 };
}

const listen = (server: net.Server, host: string, port = 0) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as net.AddressInfo).port));
  });

describe('SSRF matrix: the delivery activity with private networks not allowed', () => {
  let db: Db;
  let dir: string;
  let eventId = 0;
  let pipelineId = 0;
  const counter = connectionCounter();
  let port = 0;
  let hasV6 = false;
  /** Every socket connect() in this process, so a forbidden address that no listener can stand in for is still caught. */
  const dialled: string[] = [];
  const originalConnect = net.Socket.prototype.connect;
  let refusedCases = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ssrf-matrix-'));
    db = createDb(testDatabaseUrl(), 2);
    port = await listen(counter.v4, '127.0.0.1');
    hasV6 = await listen(counter.v6, '::1', port).then(
      () => true,
      () => false,
    );
    ({ pipelineId, eventId } = await insertEventFixture(db, 'ssrf-matrix'));
    // Record the destination of every outgoing socket (net and TLS sockets both go through here).
    net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
      // Node passes its own normalised [options, callback] array on the internal path.
      const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
      const opts = first as { host?: string; port?: number; path?: string } | number;
      dialled.push(
        typeof opts === 'object' && opts !== null
          ? `${opts.host ?? ''}:${opts.port ?? opts.path ?? ''}`
          : `:${String(opts)}`,
      );
      return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
    } as typeof net.Socket.prototype.connect;
  });

  afterAll(async () => {
    net.Socket.prototype.connect = originalConnect;
    console.log(
      `SSRF matrix: ${refusedCases} forbidden targets refused without a connection, each with its reason recorded`,
    );
    counter.v4.close();
    counter.v6.close();
    await db?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  async function newWebhook(url: string): Promise<number> {
    const [row] = await db('webhooks')
      .insert({ pipeline_id: pipelineId, url, events: ['user_added', 'user_removed'] })
      .returning('id');
    return row.id;
  }

  const deps = (more: Partial<DeliverDeps> = {}): DeliverDeps => ({
    db,
    openSecret: (s) => s,
    timeoutMs: 3_000,
    allowPrivateNetworks: false,
    log: createLogger('silent'),
    ...more,
  });

  const deliveryRows = (webhookId: number) =>
    db('webhook_deliveries')
      .where({ webhook_id: webhookId })
      .select('status', 'status_code', 'response_body', 'attempt');

  // [case, url, the reason the row must give, does this process resolve it with the fake DNS]
  const P = () => port;
  const matrix: [string, () => string, RegExp, boolean?][] = [
    ['IPv4 loopback', () => `https://127.0.0.1:${P()}/hook`, /^refused: 127\.0\.0\.1 is a loopback address/],
    ['IPv6 loopback', () => `https://[::1]:${P()}/hook`, /^refused: ::1 is a loopback address/],
    ['10/8', () => `https://10.0.0.1:${P()}/hook`, /^refused: 10\.0\.0\.1 is a private address/],
    ['172.16/12', () => `https://172.16.0.1:${P()}/hook`, /^refused: 172\.16\.0\.1 is a private address/],
    ['192.168/16', () => `https://192.168.1.1:${P()}/hook`, /^refused: 192\.168\.1\.1 is a private address/],
    [
      'cloud metadata',
      () => `https://169.254.169.254/latest/meta-data/`,
      /^refused: 169\.254\.169\.254 is a link-local address/,
    ],
    ['0.0.0.0', () => `https://0.0.0.0:${P()}/hook`, /^refused: 0\.0\.0\.0 is a "this network" address/],
    [
      'localhost (system resolver)',
      () => `https://localhost:${P()}/hook`,
      /^refused: localhost \((127\.0\.0\.1|::1)\) is a loopback address/,
    ],
    [
      'name resolving to 10/8',
      () => `https://intranet.test:${P()}/hook`,
      /^refused: intranet\.test \(10\.1\.2\.3\) is a private address/,
      true,
    ],
    [
      'name resolving to the metadata address',
      () => `https://metadata.test/`,
      /^refused: metadata\.test \(169\.254\.169\.254\) is a link-local address/,
      true,
    ],
    [
      'name resolving to ::1',
      () => `https://loopback6.test:${P()}/hook`,
      /^refused: loopback6\.test \(::1\) is a loopback address/,
      true,
    ],
    [
      'name with one private answer among public ones',
      () => `https://mixed.test:${P()}/hook`,
      /^refused: mixed\.test \(192\.168\.0\.7\) is a private address/,
      true,
    ],
    [
      'IPv4-mapped IPv6 loopback',
      () => `https://[::ffff:127.0.0.1]:${P()}/hook`,
      /^refused: ::ffff:7f00:1 is a loopback address \(IPv4-mapped 127\.0\.0\.1\)/,
    ],
    [
      'NAT64-embedded loopback',
      () => `https://[64:ff9b::127.0.0.1]:${P()}/hook`,
      /^refused: 64:ff9b::7f00:1 is a loopback address \(NAT64 127\.0\.0\.1\)/,
    ],
    ['decimal IPv4', () => `https://2130706433:${P()}/hook`, /^refused: 127\.0\.0\.1 is a loopback address/],
    ['hexadecimal IPv4', () => `https://0x7f000001:${P()}/hook`, /^refused: 127\.0\.0\.1 is a loopback address/],
    ['short IPv4', () => `https://127.1:${P()}/hook`, /^refused: 127\.0\.0\.1 is a loopback address/],
    [
      'IPv6 unique local',
      () => `https://[fd00::1]:${P()}/hook`,
      /^refused: fd00::1 is a private \(unique local\) address/,
    ],
    ['IPv6 link-local', () => `https://[fe80::1]:${P()}/hook`, /^refused: fe80::1 is a link-local address/],
  ];

  it.each(matrix)(
    'refuses %s without connecting, and the delivery row says why',
    async (_name, url, reason, fakeDns) => {
      const webhookId = await newWebhook(url());
      const before = counter.total();
      const dialledBefore = dialled.length;
      const input = { workflowId: `ssrf-matrix-${webhookId}`, eventId, webhookId, attempt: 1 };
      const more = fakeDns
        ? { resolveTarget: (host: string, allow: boolean) => resolveAndCheck(host, allow, fakeLookup) }
        : {};
      const out = await deliverAttempt(deps(more), input);
      expect(out).toMatchObject({ outcome: 'failed', statusCode: 0 });
      expect(out.reason).toMatch(reason);
      const rows = await deliveryRows(webhookId);
      expect(rows).toEqual([
        { status: 'failed', status_code: 0, response_body: expect.stringMatching(reason), attempt: 1 },
      ]);
      expect(rows[0].response_body).toContain('(private networks are not allowed)');
      // Give a stray connection time to land before counting.
      await new Promise((r) => setTimeout(r, 50));
      expect(counter.total()).toBe(before);
      // The only sockets opened meanwhile are the database pool's.
      const dbPort = new URL(testDatabaseUrl()).port;
      expect(dialled.slice(dialledBefore).filter((d) => !d.endsWith(`:${dbPort}`))).toEqual([]);
      refusedCases++;
    },
  );

  it('does connect to the same listener when private networks are allowed (the counters work)', async () => {
    const webhookId = await newWebhook(`https://127.0.0.1:${port}/hook`);
    const before = counter.state.v4;
    const out = await deliverAttempt(deps({ allowPrivateNetworks: true }), {
      workflowId: `ssrf-control-${webhookId}`,
      eventId,
      webhookId,
      attempt: 1,
    });
    expect(out.outcome).toBe('failed');
    // Its connection is counted once the listener has accepted it.
    await vi.waitFor(() => expect(counter.state.v4).toBe(before + 1), { timeout: 5_000, interval: 5 });
    if (hasV6) {
      const v6Hook = await newWebhook(`https://[::1]:${port}/hook`);
      const v6Before = counter.state.v6;
      await deliverAttempt(deps({ allowPrivateNetworks: true }), {
        workflowId: `ssrf-control-${v6Hook}`,
        eventId,
        webhookId: v6Hook,
        attempt: 1,
      });
      await vi.waitFor(() => expect(counter.state.v6).toBe(v6Before + 1), { timeout: 5_000, interval: 5 });
    }
    expect(
      dialled.some((d) => d.endsWith(`:${port}`)),
      'the socket recorder saw the connection',
    ).toBe(true);
  });

  it('does not follow a redirect from an allowed receiver to a private address', async () => {
    // The allowed receiver: HTTPS on 127.0.0.1 with a certificate for public.test, answering each path with a redirect.
    const keyFile = join(dir, 'public.key');
    const certFile = join(dir, 'public.crt');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '2',
        '-subj',
        '/CN=public.test',
        '-addext',
        'subjectAltName=DNS:public.test',
      ],
      { stdio: 'ignore' },
    );
    const redirects: Record<string, [number, string]> = {
      '/r302': [302, `https://127.0.0.1:${port}/stolen`],
      '/r301': [301, `https://[::1]:${port}/stolen`],
      '/r307': [307, `https://localhost:${port}/stolen`],
      '/r308': [308, 'https://169.254.169.254/latest/meta-data/iam/'],
      '/r303': [303, `https://2130706433:${port}/stolen`],
    };
    const seen: string[] = [];
    const receiver = https.createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (req, res) => {
      seen.push(req.url ?? '');
      const [code, location] = redirects[req.url ?? ''] ?? [404, ''];
      req.resume();
      res.writeHead(code, location ? { location } : {}).end();
    });
    const receiverPort = await listen(receiver as unknown as net.Server, '127.0.0.1');
    try {
      const cases = await Promise.all(
        Object.keys(redirects).map(async (path) => {
          const webhookId = await newWebhook(`https://public.test:${receiverPort}${path}`);
          return { path, input: { workflowId: `ssrf-redirect-${webhookId}`, eventId, webhookId, attempt: 1 } };
        }),
      );
      const before = counter.total();
      const outs = await deliverInChild(
        certFile,
        cases.map((c) => c.input),
      );
      await new Promise((r) => setTimeout(r, 100));
      // The allowed receiver was reached once per case, so each refusal is the redirect's, not the guard's.
      expect(seen.sort()).toEqual(Object.keys(redirects).sort());
      expect(counter.total()).toBe(before);
      for (const [i, { path, input }] of cases.entries()) {
        const [code, location] = redirects[path];
        expect(outs[i]).toMatchObject({ outcome: 'failed', statusCode: code });
        const rows = await deliveryRows(input.webhookId);
        expect(rows).toEqual([
          {
            status: 'failed',
            status_code: code,
            response_body: `redirect not followed (${code} to ${location})`,
            attempt: 1,
          },
        ]);
        refusedCases++;
      }
    } finally {
      receiver.close();
    }
  });
});

const run = promisify(execFile);

/**
 * Runs the delivery activity in a child process that trusts `caFile`, with `public.test` resolving
 * to 127.0.0.1 as if it were public; every other host goes through the real guard.
 */
async function deliverInChild(
  caFile: string,
  inputs: { workflowId: string; eventId: number; webhookId: number; attempt: number }[],
): Promise<DeliverAttemptOutput[]> {
  const script = `
    const { deliverAttempt } = await import(process.env.M_DELIVER);
    const { resolveAndCheck } = await import(process.env.M_SSRF);
    const { createDb } = await import(process.env.M_DB);
    const { createLogger } = await import(process.env.M_LOGGER);
    const db = createDb(process.env.DATABASE_URL, 1);
    const local = { address: '127.0.0.1', family: 4 };
    const deps = {
      db, openSecret: (s) => s, timeoutMs: 5000, allowPrivateNetworks: false, log: createLogger('silent'),
      resolveTarget: (host, allow) => (host === 'public.test' ? Promise.resolve({ ...local, all: [local] }) : resolveAndCheck(host, allow)),
    };
    const outs = [];
    for (const input of JSON.parse(process.env.INPUTS)) outs.push(await deliverAttempt(deps, input));
    await db.destroy();
    process.stdout.write(JSON.stringify(outs));
  `;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      NODE_EXTRA_CA_CERTS: caFile,
      DATABASE_URL: testDatabaseUrl(),
      INPUTS: JSON.stringify(inputs),
      M_DELIVER: moduleUrl('webhooks/deliver-attempt.ts'),
      M_SSRF: moduleUrl('webhooks/ssrf.ts'),
      M_DB: moduleUrl('db/knex.ts'),
      M_LOGGER: moduleUrl('observability/logger.ts'),
    },
  });
  return JSON.parse(stdout) as DeliverAttemptOutput[];
}
