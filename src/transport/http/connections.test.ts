import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { answerClientError } from './client-error.js';
import { closeAfterAnswer, KEEP_ALIVE_HINT_SECONDS, manageConnections, serverOptions } from './connections.js';

/**
 * The connection policy on a bare server (a short idle timeout stands in for KEEP_ALIVE_MS). The
 * api's own answers to refusals are in test/e2e/connections.test.ts.
 */
const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function listen(server: http.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

/** A raw client connection: what it received, and how it ended. */
function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (d) => (received += d.toString('latin1')));
  const closed = new Promise<string>((resolve) => {
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    socket.on('close', () => resolve('closed'));
  });
  // Status lines (an answer's body here never holds one).
  const answers = () => received.match(/HTTP\/1\.1 \d{3}/g) ?? [];
  const until = async (what: string, ok: () => boolean) => {
    for (const deadline = Date.now() + 10_000; !ok(); await new Promise((r) => setImmediate(r)))
      if (Date.now() > deadline) throw new Error(`no ${what}: ${received.slice(0, 300)}`);
  };
  return { socket, closed, answers, received: () => received, until };
}

const post = (body: string) =>
  `POST /x HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

describe('keep-alive connections', () => {
  it('advertise a hint far below the idle close', async () => {
    const server = http.createServer(serverOptions(), (_req, res) => res.end('{}'));
    manageConnections(server);
    const res = await fetch(`http://127.0.0.1:${await listen(server)}/`);
    expect(res.headers.get('keep-alive')).toBe(`timeout=${KEEP_ALIVE_HINT_SECONDS}`);
    expect(KEEP_ALIVE_HINT_SECONDS * 1000).toBeLessThan(Number(serverOptions().keepAliveTimeout) / 10);
  });

  it('answer a request that arrived before the idle close although the event loop ran late', async () => {
    const keepAliveTimeout = 300;
    let finished = 0;
    const server = http.createServer({ ...serverOptions(), keepAliveTimeout }, (req, res) => {
      req.resume();
      req.on('end', () => res.end('{}'));
      res.on('finish', () => (finished = performance.now()));
    });
    manageConnections(server);
    const c = connect(await listen(server));
    c.socket.write(post('{}'));
    await c.until('first answer', () => c.answers().length === 1 && c.received().endsWith('{}'));
    // Node closes an idle connection keepAliveTimeout + 1 s after its last answer. The second
    // request is sent before that; then the process stalls past it (a loaded machine), in the
    // check phase, so the next turn runs its timers before it reads the socket.
    const closesAt = finished + keepAliveTimeout + 1_000;
    await new Promise((r) => setTimeout(r, Math.max(0, closesAt - 200 - performance.now())));
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        c.socket.write(post('{"second":true}'));
        while (performance.now() < closesAt + 300);
        resolve();
      }),
    );
    await c.until('second answer or close', () => c.answers().length === 2 || c.socket.destroyed);
    expect(c.answers()).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    c.socket.destroy();
  });
});

describe("a request Node's parser refuses", () => {
  it('is answered on a connection that answered before (the ended answer is no reason to stay silent)', async () => {
    const server = http.createServer(serverOptions(), (req, res) => {
      req.resume();
      req.on('end', () => res.end('{}'));
    });
    manageConnections(server);
    server.on('clientError', (err: NodeJS.ErrnoException, socket: net.Socket) => answerClientError(err, socket, 'id'));
    const c = connect(await listen(server));
    c.socket.write(post('{}'));
    await c.until('first answer', () => c.answers().length === 1 && c.received().endsWith('{}'));
    c.socket.write('FROBNICATE /x HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await c.closed).toBe('closed');
    expect(c.answers()).toEqual(['HTTP/1.1 200', 'HTTP/1.1 400']);
  });
});

describe('bytes Node refuses while an earlier request is being handled', () => {
  it('leave that request its own answer, then the connection closes', async () => {
    let answer: (() => void) | undefined;
    const server = http.createServer(serverOptions(), (req, res) => {
      req.resume();
      // The handler answers only after the junk has arrived (a batch still being stored).
      req.on('end', () => (answer = () => res.end('{"stored":true}')));
    });
    manageConnections(server);
    let refused = 0;
    server.on('clientError', (err: NodeJS.ErrnoException, socket: net.Socket) => {
      refused++;
      answerClientError(err, socket, 'id');
    });
    const c = connect(await listen(server));
    c.socket.write(post('{}'));
    for (const deadline = Date.now() + 10_000; !answer; await new Promise((r) => setImmediate(r)))
      if (Date.now() > deadline) throw new Error('the request never reached its handler');
    c.socket.write('FROBNICATE /x HTTP/1.1\r\nHost: x\r\n\r\n');
    for (const deadline = Date.now() + 10_000; refused === 0; await new Promise((r) => setImmediate(r)))
      if (Date.now() > deadline) throw new Error('the junk was never refused');
    answer();
    expect(await c.closed).toBe('closed');
    expect(c.answers()).toEqual(['HTTP/1.1 200']);
    expect(c.received()).toMatch(/\{"stored":true\}$/);
  });
});

describe('an answer sent before the body arrived whole', () => {
  it('says Connection: close, reads at most the bound more, then closes; the client reads the answer', async () => {
    const limits = { bytes: 1 << 20, ms: 2_000 };
    const server = http.createServer(serverOptions(), (req, res) => {
      closeAfterAnswer(req, res, limits);
      res.writeHead(413, { 'Content-Type': 'application/json' }).end('{"error":{}}');
    });
    manageConnections(server);
    const c = connect(await listen(server));
    const declared = 1 << 30;
    c.socket.write(`POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: ${declared}\r\n\r\n`);
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const ended = c.closed.then(() => false);
    // Writes as fast as the server reads, until it stops reading and closes (or 256 MB went).
    while (!c.socket.destroyed && sent < 256 * (1 << 20)) {
      if (
        !c.socket.write(chunk) &&
        !(await Promise.race([new Promise((r) => c.socket.once('drain', () => r(true))), ended]))
      )
        break;
      sent += chunk.length;
    }
    // The bound, and the kernel's buffers on both sides (a few MB on loopback): past the bound
    // the server stops reading, the client's writes stop draining, and the close comes at limits.ms.
    expect(sent).toBeLessThan(limits.bytes + 32 * (1 << 20));
    expect(server.listening).toBe(true);
    expect(await c.closed).toMatch(/closed|ECONNRESET|EPIPE/);
    expect(c.answers()).toEqual(['HTTP/1.1 413']);
    expect(c.received()).toMatch(/\r\nConnection: close\r\n/i);
    expect(c.received()).not.toMatch(/Keep-Alive:/i);
  });
});
