import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { call, newTenant, stack, waitFor, type Tenant } from '../support/api.js';
import { checkAnswer } from '../support/contract.js';

/**
 * Every refusal is an HTTP answer the client can read (issue 44, finding 9; docs/api.md, "Connections").
 * The api answers some requests before their body has arrived (no key, a body over 5 MB, a batch
 * over 1,000 users, a tenant at its in-flight limit) and some that never arrive whole (408): the
 * answer says `Connection: close`, and the connection closes only after the client could read
 * it, having read at most LINGER more bytes. Raw connections here see the bytes themselves.
 */
const MB = 1 << 20;
const MAX_BODY = 5 * MB;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** The answers in what a connection received (each with a Content-Length, as the api sends them). */
function answersIn(raw: Buffer): Answer[] {
  const answers: Answer[] = [];
  for (let at = 0; at < raw.length;) {
    const head = raw.indexOf('\r\n\r\n', at);
    if (head < 0) break;
    const [statusLine, ...lines] = raw.subarray(at, head).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
    const length = Number(headers['content-length'] ?? 0);
    const text = raw.subarray(head + 4, head + 4 + length).toString('utf8');
    answers.push({ status: Number(statusLine.split(' ')[1]), headers, body: text ? JSON.parse(text) : undefined });
    at = head + 4 + length;
  }
  return answers;
}

/**
 * A raw connection to the gateway: what it received, and how it ended. With `allowHalfOpen` it
 * keeps its side open when the api closes its own, as a stalled or hostile client may.
 */
function connect(allowHalfOpen = false) {
  const url = new URL(stack().gatewayUrl);
  const socket = net.connect({ port: Number(url.port), host: url.hostname, allowHalfOpen });
  const chunks: Buffer[] = [];
  socket.on('data', (d: Buffer) => chunks.push(d));
  const closed = new Promise<string>((resolve) => {
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    socket.on('close', () => resolve('closed'));
  });
  return { socket, closed, answers: () => answersIn(Buffer.concat(chunks)) };
}

type Connection = ReturnType<typeof connect>;

/**
 * Writes `next()` as fast as the server reads it, until the server closes the connection or
 * `cap` bytes went; answers the bytes written.
 */
async function upload(c: Connection, head: string, next: () => Buffer, cap = 64 * MB): Promise<number> {
  c.socket.write(head);
  const ended = c.closed.then(() => false);
  let sent = 0;
  while (!c.socket.destroyed && sent < cap) {
    const chunk = next();
    sent += chunk.length;
    if (
      !c.socket.write(chunk) &&
      !(await Promise.race([new Promise((r) => c.socket.once('drain', () => r(true))), ended]))
    )
      break;
  }
  return sent;
}

const bytes = (s: string) => Buffer.from(s);
const ONE_MB = Buffer.alloc(MB, ' ');

async function refusal(t: Tenant, kind: string) {
  const key = `X-API-Key: ${t.key}\r\n`;
  const head = (headers: string) => `POST /api/v1/users HTTP/1.1\r\nHost: api\r\n${headers}\r\n`;
  const json = 'Content-Type: application/json\r\n';
  const c = connect();
  let sent: number;
  if (kind === 'declared over 5 MB') {
    sent = await upload(c, head(`${key}${json}Content-Length: ${1 << 30}\r\n`), () => ONE_MB);
  } else if (kind === 'chunked past 5 MB') {
    const chunk = Buffer.concat([bytes(`${MB.toString(16)}\r\n`), ONE_MB, bytes('\r\n')]);
    sent = await upload(c, head(`${key}${json}Transfer-Encoding: chunked\r\n`), () => chunk);
  } else if (kind === 'over 1,000 users') {
    let first = true;
    const users = bytes(Array.from({ length: 1_000 }, (_, i) => `{"user_id":"u${i}","text":"hello"},`).join(''));
    sent = await upload(c, head(`${key}${json}Transfer-Encoding: chunked\r\n`), () => {
      const piece = first ? Buffer.concat([bytes(`{"project_id":${t.projectId},"users":[`), users]) : users;
      first = false;
      return Buffer.concat([bytes(`${piece.length.toString(16)}\r\n`), piece, bytes('\r\n')]);
    });
  } else if (kind === 'no API key') {
    sent = await upload(c, head(`${json}Content-Length: ${1 << 30}\r\n`), () => ONE_MB);
  } else {
    const chunk = Buffer.concat([bytes(`${MB.toString(16)}\r\n`), ONE_MB, bytes('\r\n')]);
    sent = await upload(c, head(`${key}Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n`), () => chunk);
  }
  return { kind, sent, ended: await c.closed, answers: c.answers() };
}

describe('refusals before the body has arrived', () => {
  it('are answered, with Connection: close, and the connection closes after at most LINGER more bytes', async () => {
    const t = await newTenant('connections');
    const expected: Record<string, [number, string]> = {
      'declared over 5 MB': [413, 'payload_too_large'],
      'chunked past 5 MB': [413, 'payload_too_large'],
      'over 1,000 users': [400, 'invalid_argument'],
      'no API key': [401, 'unauthenticated'],
      'not JSON': [400, 'invalid_argument'],
    };
    // Two of each at once, 10 uploads for one tenant (its in-flight limit is 8: some may be 429).
    const results = await Promise.all(Object.keys(expected).flatMap((kind) => [refusal(t, kind), refusal(t, kind)]));
    for (const r of results) {
      expect(r.answers, r.kind).toHaveLength(1);
      const [a] = r.answers;
      const [status, code] = a.status === 429 ? [429, 'rate_limited'] : expected[r.kind];
      expect({ kind: r.kind, status: a.status, code: a.body?.error?.code }).toEqual({ kind: r.kind, status, code });
      expect(a.headers.connection, r.kind).toBe('close');
      expect(a.headers['keep-alive'], r.kind).toBeUndefined();
      expect(a.headers['x-request-id'], r.kind).toBeTruthy();
      await checkAnswer(stack().gatewayUrl, {
        method: 'POST',
        path: '/api/v1/users',
        status: a.status,
        contentType: a.headers['content-type'],
        allow: null,
        body: a.body,
      });
      // Read up to the refusal (5 MB at most) and LINGER (5 MB) after it, plus what the kernels
      // buffer on loopback; a server that drains every refused body takes all 64 MB.
      expect(r.sent, r.kind).toBeLessThan(2 * MAX_BODY + 16 * MB);
      expect(r.ended, r.kind).toMatch(/^(closed|ECONNRESET|EPIPE)$/);
    }
    // Every place of the tenant was given back.
    expect((await call('GET', '/api/v1/projects', { key: t.key })).status).toBe(200);
  });

  it('are read by a keep-alive client (fetch) as answers, never as a closed connection', async () => {
    const t = await newTenant('connections-fetch');
    // 8 MB streamed a megabyte at a time: refused once 5 MB have been read.
    const body = () => {
      let left = 8;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (left-- > 0) controller.enqueue(new Uint8Array(ONE_MB));
          else controller.close();
        },
      });
    };
    const send = () =>
      fetch(`${stack().gatewayUrl}/api/v1/users`, {
        method: 'POST',
        headers: { 'X-API-Key': t.key, 'Content-Type': 'application/json' },
        body: body(),
        duplex: 'half',
      } as RequestInit).then(
        async (res) => [res.status, ((await res.json()) as { error: { code: string } }).error.code],
        (err: Error & { cause?: Error }) => [0, `${err.message}: ${err.cause?.message}`],
      );
    const answers = await Promise.all(Array.from({ length: 16 }, send));
    const statuses = new Set(answers.map(([status]) => status));
    expect(answers.filter(([status]) => status !== 413 && status !== 429)).toEqual([]);
    expect(statuses.has(413)).toBe(true);
  });
});

describe('answers sent before the body has arrived', () => {
  it('close the connection after at most LINGER more bytes, whatever the status (a 200, a 405)', async () => {
    const t = await newTenant('connections-early');
    const early = async (method: string) => {
      const c = connect();
      const head =
        `${method} /api/v1/projects HTTP/1.1\r\nHost: api\r\nX-API-Key: ${t.key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${1 << 30}\r\n\r\n`;
      const sent = await upload(c, head, () => ONE_MB);
      return { method, sent, ended: await c.closed, answers: c.answers() };
    };
    // GET /api/v1/projects reads no body: answered 200 at once. PATCH is not a method of the path: 405.
    for (const r of await Promise.all([early('GET'), early('PATCH')])) {
      expect(r.answers.map((a) => a.status)).toEqual([r.method === 'GET' ? 200 : 405]);
      expect(r.answers[0].headers.connection, r.method).toBe('close');
      // A kept-alive connection drains the whole declared body (all 64 MB sent) and answers 408 after it.
      expect(r.sent, r.method).toBeLessThan(2 * MAX_BODY + 16 * MB);
      expect(r.ended, r.method).toMatch(/^(closed|ECONNRESET|EPIPE)$/);
    }
  });
});

describe('a request that does not arrive whole in time', () => {
  it(
    'is answered 408, and its connection closed even if the client keeps its side open: its tenant place comes back',
    { timeout: 180_000 },
    async () => {
      const t = await newTenant('connections-stalled');
      // As many stalled uploads as the tenant has places (TENANT_REQUESTS_IN_FLIGHT, 8 on this
      // stack), from clients that never close their side.
      const stalled = Array.from({ length: 8 }, () => {
        const c = connect(true);
        c.socket.write(
          `POST /api/v1/users HTTP/1.1\r\nHost: api\r\nX-API-Key: ${t.key}\r\nContent-Type: application/json\r\n` +
            `Content-Length: 1000\r\n\r\n{"project_id":${t.projectId},`,
        );
        return c;
      });
      // Each holds a place while its handler waits for the body.
      await waitFor(
        'the places taken',
        async () => (await call('GET', '/api/v1/projects', { key: t.key })).status === 429,
      );
      // Past HTTP_REQUEST_TIMEOUT_MS (10 s on this stack, looked for every 2 s): one answer each,
      // before the default of 30 s would have given one.
      await waitFor('the 408 answers', async () => stalled.every((c) => c.answers().length > 0), 25_000);
      for (const c of stalled) {
        const answers = c.answers();
        expect(answers.map((a) => a.status)).toEqual([408]);
        expect(answers[0].body).toEqual({
          error: { code: 'invalid_argument', message: 'the request was not received in time' },
        });
        expect(answers[0].headers).toMatchObject({
          connection: 'close',
          'content-type': 'application/json; charset=utf-8',
        });
      }
      // The api closed the connections (LINGER, 5 s, after the answer): the handlers waiting for
      // those bodies ended, and gave their places back. Otherwise they wait as long as the clients.
      await waitFor(
        'the tenant served again',
        async () => (await call('GET', '/api/v1/projects', { key: t.key })).status === 200,
        30_000,
      );
      for (const c of stalled) c.socket.destroy();
    },
  );
});

describe('keep-alive answers', () => {
  it('advertise an idle time far below the api’s own (5 s against 65 s), so a client closes first', async () => {
    const res = await fetch(`${stack().gatewayUrl}/healthz`);
    expect(res.headers.get('keep-alive')).toBe('timeout=5');
    expect(res.headers.get('connection')).toBe('keep-alive');
  });
});
