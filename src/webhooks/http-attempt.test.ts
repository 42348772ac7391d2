/**
 * Integration tests of one webhook attempt against real HTTPS and TCP listeners on this machine.
 *
 * Receivers use a self-signed certificate. Production code has no way to pass a CA (on purpose),
 * and NODE_EXTRA_CA_CERTS is only read when a process starts, so attempts that must trust the
 * certificate run `sendWebhook` in a child `node --import tsx` with NODE_EXTRA_CA_CERTS set, exactly
 * as an operator with a private CA would. Attempts that never get to a trusted TLS handshake
 * (refusals, refused connections, untrusted certificates) run in this process.
 */
import { execFile, execFileSync } from 'node:child_process';
import dns from 'node:dns';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server as TcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RESPONSE_BYTES, sendWebhook, type AttemptResult, type WebhookRequest } from './http-attempt.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MODULE_PATH = fileURLToPath(new URL('./http-attempt.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'webhook-tls-'));

/** A self-signed certificate (its own CA) with the given subjectAltName. */
function selfSigned(name: string, san: string): { key: string; cert: string; certFile: string } {
  const keyFile = join(dir, `${name}.key`);
  const certFile = join(dir, `${name}.crt`);
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
      `/CN=${name}`,
      '-addext',
      `subjectAltName=${san}`,
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

interface Seen {
  method?: string;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  servername?: string | false | null;
}

/** An HTTPS receiver whose behaviour depends on the path; it remembers the last request per path. */
function receiver(tls: { key: string; cert: string }, redirectTo: () => string) {
  const seen = new Map<string, Seen>();
  const server = createHttpsServer(tls, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const path = req.url ?? '/';
      seen.set(path, {
        method: req.method,
        body,
        headers: req.headers,
        servername: (req.socket as TLSSocket).servername,
      });
      if (path === '/ok') res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
      else if (path === '/fail') res.writeHead(500).end('boom: database down');
      else if (path === '/slow') {
        const timer = setTimeout(() => res.writeHead(200).end('late'), 3000);
        res.on('close', () => clearTimeout(timer));
      } else if (path === '/redirect') res.writeHead(302, { location: redirectTo() }).end();
      else if (path === '/big') res.writeHead(200).end('a'.repeat(1024 * 1024));
      // The status line and part of a body, then nothing: the body never ends.
      else if (path === '/stall-ok') res.writeHead(200, { 'content-length': '1000' }).write('received, processing');
      else if (path === '/stall-fail') res.writeHead(503, { 'content-length': '1000' }).write('overloaded');
      else if (path === '/utf8') res.writeHead(200).end('x' + 'é'.repeat(3000));
      else if (path === '/busy') res.writeHead(429, { 'retry-after': '3' }).end('slow down');
      else if (path === '/down')
        res.writeHead(503, { 'retry-after': 'Thu, 01 Jan 2099 00:00:00 GMT' }).end('maintenance');
      else if (path === '/teapot') res.writeHead(500, { 'retry-after': '3' }).end('no');
      else res.writeHead(404).end();
    });
  });
  return { server, seen };
}

/** A plain TCP listener that only counts connections, to prove nothing reached it. */
function counter() {
  const state = { connections: 0 };
  const server = createTcpServer((socket) => {
    state.connections += 1;
    socket.destroy();
  });
  return { server, state };
}

function listen(server: HttpsServer | TcpServer, host: string, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

const run = promisify(execFile);
const CHILD = `
const { sendWebhook } = await import(process.env.WEBHOOK_MODULE);
process.stdout.write(JSON.stringify(await sendWebhook(JSON.parse(process.env.WEBHOOK_ARGS))));
`;

/** Runs one attempt in a child process that trusts our test CA through NODE_EXTRA_CA_CERTS. */
async function sendTrusted(args: WebhookRequest): Promise<AttemptResult> {
  // Async on purpose: the receivers live in this process and must keep answering meanwhile.
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      NODE_EXTRA_CA_CERTS: caFile,
      WEBHOOK_MODULE: MODULE_PATH,
      WEBHOOK_ARGS: JSON.stringify(args),
    },
  });
  return JSON.parse(stdout) as AttemptResult;
}

const body = JSON.stringify({ event_type: 'user_added', user: { id: 'u-1', score: 0.9 } });
const headers = { 'Content-Type': 'application/json', 'X-Event-ID': '17', 'X-Event-Type': 'user_added' };
const request = (url: string, more: Partial<WebhookRequest> = {}): WebhookRequest => ({
  url,
  body,
  headers,
  timeoutMs: 5000,
  allowPrivateNetworks: true,
  ...more,
});

let caFile: string;
let main: ReturnType<typeof receiver>;
let nameOnly: ReturnType<typeof receiver>;
let count: ReturnType<typeof counter>;
let count6: ReturnType<typeof counter> | undefined;
let mainPort: number;
let nameOnlyPort: number;
let countPort: number;

beforeAll(async () => {
  const mainCert = selfSigned('receiver', 'DNS:localhost,IP:127.0.0.1');
  const nameCert = selfSigned('name-only', 'DNS:localhost');
  caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, mainCert.cert + nameCert.cert);

  count = counter();
  countPort = await listen(count.server, '127.0.0.1');
  // Count IPv6 loopback connections too where the machine has ::1.
  const v6 = counter();
  count6 = await listen(v6.server, '::1', countPort).then(
    () => v6,
    () => undefined,
  );

  main = receiver(mainCert, () => `https://127.0.0.1:${countPort}/stolen`);
  mainPort = await listen(main.server, '127.0.0.1');
  nameOnly = receiver(nameCert, () => '');
  nameOnlyPort = await listen(nameOnly.server, '127.0.0.1');
});

afterAll(async () => {
  for (const s of [main?.server, nameOnly?.server]) s?.closeAllConnections();
  for (const s of [main?.server, nameOnly?.server, count?.server, count6?.server]) s?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('sendWebhook against a trusted HTTPS receiver', () => {
  it('posts the exact body and headers and reports a 2xx as ok with the answer', async () => {
    const result = await sendTrusted(request(`https://localhost:${mainPort}/ok`));
    expect(result).toMatchObject({ ok: true, statusCode: 200, responseBody: 'thanks' });
    expect(result.error).toBeUndefined();
    expect(Number.isInteger(result.durationMs)).toBe(true);
    const seen = main.seen.get('/ok')!;
    expect(seen.method).toBe('POST');
    expect(seen.body).toBe(body);
    expect(seen.headers).toMatchObject({
      'content-type': 'application/json',
      'x-event-id': '17',
      'x-event-type': 'user_added',
      'content-length': String(Buffer.byteLength(body)),
      host: `localhost:${mainPort}`,
    });
    // SNI carries the host name even though the socket went to the pinned address.
    expect(seen.servername).toBe('localhost');
  });

  it('reports a 500 as failed with its status and body', async () => {
    const result = await sendTrusted(request(`https://localhost:${mainPort}/fail`));
    expect(result).toMatchObject({ ok: false, statusCode: 500, responseBody: 'boom: database down' });
    expect(result.error).toBe('receiver answered 500');
  });

  it('reads Retry-After on 429 and 503 only (seconds or an HTTP date, capped at 24 h)', async () => {
    const busy = await sendTrusted(request(`https://localhost:${mainPort}/busy`));
    expect(busy).toMatchObject({ ok: false, statusCode: 429, responseBody: 'slow down', retryAfterMs: 3_000 });
    const down = await sendTrusted(request(`https://localhost:${mainPort}/down`));
    expect(down).toMatchObject({ ok: false, statusCode: 503, retryAfterMs: 24 * 3_600_000 });
    const other = await sendTrusted(request(`https://localhost:${mainPort}/teapot`));
    expect(other.statusCode).toBe(500);
    expect(other).not.toHaveProperty('retryAfterMs');
  });

  it('gives up after timeoutMs on a slow receiver, with status 0', async () => {
    const result = await sendTrusted(request(`https://localhost:${mainPort}/slow`, { timeoutMs: 400 }));
    expect(result).toMatchObject({ ok: false, statusCode: 0, responseBody: 'timeout after 400 ms' });
  });

  it('settles on the status line: a 2xx whose body never ends is a success with the body read so far', async () => {
    const result = await sendTrusted(request(`https://localhost:${mainPort}/stall-ok`, { timeoutMs: 600 }));
    expect(result).toMatchObject({ ok: true, statusCode: 200, responseBody: 'received, processing' });
    expect(result.error).toBeUndefined();
  });

  it('a non-2xx whose body never ends is a failure with its status code, not 0', async () => {
    const result = await sendTrusted(request(`https://localhost:${mainPort}/stall-fail`, { timeoutMs: 600 }));
    expect(result).toMatchObject({
      ok: false,
      statusCode: 503,
      responseBody: 'overloaded',
      error: 'receiver answered 503',
    });
  });

  it('does not follow a redirect, not even to another local port', async () => {
    const before = count.state.connections;
    const result = await sendTrusted(request(`https://localhost:${mainPort}/redirect`));
    expect(result.ok).toBe(false);
    expect(result.statusCode).toBe(302);
    expect(result.responseBody).toBe(`redirect not followed (302 to https://127.0.0.1:${countPort}/stolen)`);
    await new Promise((r) => setTimeout(r, 100));
    expect(count.state.connections).toBe(before);
  });

  it('keeps only the first 4096 bytes of a large answer and stops reading there', async () => {
    const result = await sendTrusted(request(`https://localhost:${mainPort}/big`));
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(MAX_RESPONSE_BYTES).toBe(4096);
    expect(result.responseBody).toBe('a'.repeat(4096));
  });

  it('does not cut a multi-byte character in half at the 4 KB limit', async () => {
    const result = await sendTrusted(request(`https://localhost:${mainPort}/utf8`));
    // 'x' + 2047 'é' = 4095 bytes; the next 'é' would straddle the limit and is dropped whole.
    expect(result.responseBody).toBe('x' + 'é'.repeat(2047));
    expect(result.responseBody).not.toContain('\uFFFD');
  });

  it('validates the certificate against the URL host name, not the connected address', async () => {
    const byName = await sendTrusted(request(`https://localhost:${nameOnlyPort}/ok`));
    expect(byName).toMatchObject({ ok: true, statusCode: 200 });
    const byIp = await sendTrusted(request(`https://127.0.0.1:${nameOnlyPort}/ok`));
    expect(byIp).toMatchObject({ ok: false, statusCode: 0 });
    expect(byIp.responseBody).toMatch(/^TLS error: .*IP: 127\.0\.0\.1 is not in the cert's list/);
  });
});

describe('sendWebhook failures without a trusted receiver', () => {
  it('fails on a certificate the process does not trust', async () => {
    const result = await sendWebhook(request(`https://localhost:${mainPort}/ok`));
    expect(result).toMatchObject({ ok: false, statusCode: 0, responseBody: 'TLS error: self-signed certificate' });
  });

  it('reports a refused connection with status 0', async () => {
    const closed = createTcpServer();
    const port = await listen(closed, '127.0.0.1');
    await new Promise((r) => closed.close(r));
    const result = await sendWebhook(request(`https://127.0.0.1:${port}/`));
    expect(result).toMatchObject({
      ok: false,
      statusCode: 0,
      responseBody: 'connection refused',
      error: 'connection refused',
    });
  });

  it('times out when the TLS handshake never completes', async () => {
    const silent = createTcpServer(() => {});
    const port = await listen(silent, '127.0.0.1');
    try {
      const result = await sendWebhook(request(`https://127.0.0.1:${port}/`, { timeoutMs: 300 }));
      expect(result).toMatchObject({ ok: false, statusCode: 0, responseBody: 'timeout after 300 ms' });
    } finally {
      silent.close();
    }
  });

  it.each(['http://127.0.0.1/', 'ftp://example.com/', 'not a url'])('refuses %s without connecting', async (url) => {
    const result = await sendWebhook(request(url));
    expect(result).toMatchObject({ ok: false, statusCode: 0 });
    expect(result.responseBody).toMatch(/^refused: /);
  });
});

describe('sendWebhook with private networks not allowed', () => {
  const P = () => countPort;
  const matrix: [string, () => string, RegExp][] = [
    ['127.0.0.1', () => `https://127.0.0.1:${P()}/`, /^refused: 127\.0\.0\.1 is a loopback address/],
    ['[::1]', () => `https://[::1]:${P()}/`, /^refused: ::1 is a loopback address/],
    ['10.0.0.1', () => `https://10.0.0.1:${P()}/`, /^refused: 10\.0\.0\.1 is a private address/],
    ['172.16.0.1', () => `https://172.16.0.1:${P()}/`, /^refused: 172\.16\.0\.1 is a private address/],
    ['192.168.1.1', () => `https://192.168.1.1:${P()}/`, /^refused: 192\.168\.1\.1 is a private address/],
    [
      '169.254.169.254',
      () => `https://169.254.169.254:${P()}/`,
      /^refused: 169\.254\.169\.254 is a link-local address/,
    ],
    ['0.0.0.0', () => `https://0.0.0.0:${P()}/`, /^refused: 0\.0\.0\.0 is a "this network" address/],
    [
      'localhost',
      () => `https://localhost:${P()}/`,
      /^refused: localhost \((127\.0\.0\.1|::1)\) is a loopback address/,
    ],
    [
      '[::ffff:127.0.0.1]',
      () => `https://[::ffff:127.0.0.1]:${P()}/`,
      /^refused: ::ffff:7f00:1 is a loopback address \(IPv4-mapped 127\.0\.0\.1\)/,
    ],
    ['2130706433 (decimal)', () => `https://2130706433:${P()}/`, /^refused: 127\.0\.0\.1 is a loopback address/],
  ];

  it.each(matrix)('refuses %s without connecting and says why', async (_name, url, reason) => {
    const before = count.state.connections + (count6?.state.connections ?? 0);
    const result = await sendWebhook(request(url(), { allowPrivateNetworks: false }));
    expect(result).toMatchObject({ ok: false, statusCode: 0 });
    expect(result.responseBody).toMatch(reason);
    expect(result.responseBody).toContain('private networks are not allowed');
    expect(result.error).toBe(result.responseBody);
    await new Promise((r) => setTimeout(r, 50));
    expect(count.state.connections + (count6?.state.connections ?? 0)).toBe(before);
  });

  it('connects to the address it checked, even if DNS answers differently a moment later (rebinding)', async () => {
    // The check sees a public address; any later lookup (what the socket would do by itself) gets loopback.
    const original = { lookup: dns.lookup, promisesLookup: dns.promises.lookup };
    const rebound: string[] = [];
    dns.promises.lookup = (async (host: string, options: object) =>
      host === 'rebind.test'
        ? [{ address: '93.184.216.34', family: 4 }]
        : original.promisesLookup(host, options)) as typeof dns.promises.lookup;
    dns.lookup = ((host: string, options: unknown, callback?: unknown) => {
      const cb = (typeof options === 'function' ? options : callback) as (...a: unknown[]) => void;
      if (host !== 'rebind.test') return (original.lookup as (...a: unknown[]) => void)(host, options, callback);
      rebound.push(host);
      if ((options as { all?: boolean })?.all) cb(null, [{ address: '127.0.0.1', family: 4 }]);
      else cb(null, '127.0.0.1', 4);
    }) as typeof dns.lookup;
    const before = count.state.connections;
    try {
      const result = await sendWebhook(
        request(`https://rebind.test:${countPort}/`, { allowPrivateNetworks: false, timeoutMs: 500 }),
      );
      expect(result.ok).toBe(false);
    } finally {
      dns.lookup = original.lookup;
      dns.promises.lookup = original.promisesLookup;
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(rebound).toEqual([]);
    expect(count.state.connections).toBe(before);
  });

  it('does connect to the same listener when private networks are allowed (the counter works)', async () => {
    const before = count.state.connections;
    const result = await sendWebhook(request(`https://127.0.0.1:${countPort}/`));
    expect(result.ok).toBe(false);
    expect(count.state.connections).toBe(before + 1);
  });
});

/** Several attempts in one child process (kept-alive connections live in the process). */
const CHILD_SEQUENCE = `
const { sendWebhook } = await import(process.env.WEBHOOK_MODULE);
const out = [];
for (const { url, address } of JSON.parse(process.env.WEBHOOK_SEQUENCE)) {
  const target = { address, family: 4, all: [{ address, family: 4 }] };
  out.push(await sendWebhook({ url, body: '{}', headers: {}, timeoutMs: 5000, allowPrivateNetworks: true,
    resolveTarget: async () => target }));
}
process.stdout.write(JSON.stringify(out));
`;

describe('kept-alive connections to receivers', () => {
  it('reuse one TLS connection per checked address, and open a new one when the checked address changes', async () => {
    const tls = selfSigned('keepalive', 'DNS:localhost');
    const connections: string[] = [];
    const server = createHttpsServer(tls, (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200).end('ok'));
    });
    server.on('secureConnection', (socket: TLSSocket) => connections.push(socket.localAddress ?? ''));
    const port = await listen(server, '0.0.0.0');
    const ca = join(dir, 'keepalive-ca.pem');
    writeFileSync(ca, tls.cert);
    try {
      const url = `https://localhost:${port}/ok`;
      // DNS "rebinds" localhost from 127.0.0.1 to 127.0.0.2 between the third and fourth attempt.
      const sequence = ['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.2', '127.0.0.2'].map((address) => ({
        url,
        address,
      }));
      const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD_SEQUENCE], {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          NODE_EXTRA_CA_CERTS: ca,
          WEBHOOK_MODULE: MODULE_PATH,
          WEBHOOK_SEQUENCE: JSON.stringify(sequence),
        },
      });
      const results = JSON.parse(stdout) as AttemptResult[];
      expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
      // One handshake per checked address: the old socket is never used for the new address.
      expect(connections).toEqual(['127.0.0.1', '127.0.0.2']);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
