import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { chunks, sendStream, StreamBody, writePieces } from './stream-body.js';

/** Pieces of `size` characters, counting how many were pulled and whether the producer was closed. */
function producer(count: number, size: number) {
  const seen = { pulled: 0, closed: false };
  async function* pieces() {
    try {
      for (let i = 0; i < count; i++) {
        seen.pulled++;
        yield String(i % 10).repeat(size);
      }
    } finally {
      seen.closed = true;
    }
  }
  return { seen, pieces: pieces() };
}

/** A destination that takes nothing until `take()` (a client that stopped reading). */
function stalled() {
  const pending: (() => void)[] = [];
  const out = new Writable({
    highWaterMark: 1,
    write: (_chunk, _enc, cb) => void pending.push(cb),
  });
  return { out, take: () => pending.splice(0).forEach((cb) => cb()) };
}

describe('writePieces', () => {
  it('writes every piece and ends complete, closing the producer', async () => {
    const written: string[] = [];
    const out = new Writable({ write: (c: Buffer, _e, cb) => (written.push(c.toString()), cb()) });
    const { seen, pieces } = producer(5, 40_000);
    await expect(writePieces(out, pieces, 1_000)).resolves.toEqual({ ended: 'complete' });
    expect(written.join('')).toBe([0, 1, 2, 3, 4].map((i) => String(i).repeat(40_000)).join(''));
    expect(seen).toEqual({ pulled: 5, closed: true });
  });

  it('pulls no piece ahead of a client that takes nothing, and cuts it after the send timeout', async () => {
    const { out } = stalled();
    const { seen, pieces } = producer(100, 40_000);
    await expect(writePieces(out, pieces, 50)).resolves.toEqual({ ended: 'idle' });
    expect(seen).toEqual({ pulled: 1, closed: true });
    expect(out.destroyed).toBe(true);
  });

  it('keeps a slow client that takes a chunk within each timeout', async () => {
    const { out, take } = stalled();
    const { seen, pieces } = producer(3, 40_000);
    // Takes one chunk every 20 ms against a 200 ms timeout: the whole stream takes longer than one timeout.
    const reader = setInterval(take, 20);
    try {
      await expect(writePieces(out, pieces, 200)).resolves.toEqual({ ended: 'complete' });
    } finally {
      clearInterval(reader);
    }
    expect(seen).toEqual({ pulled: 3, closed: true });
  });

  it('stops at a client that goes away, and reads nothing more', async () => {
    const { out } = stalled();
    const { seen, pieces } = producer(100, 40_000);
    const done = writePieces(out, pieces, 10_000);
    setTimeout(() => out.destroy(), 20);
    await expect(done).resolves.toEqual({ ended: 'client' });
    expect(seen).toEqual({ pulled: 1, closed: true });
  });

  it('answers a failing producer as failed and cuts the destination (a truncated body, never a complete one)', async () => {
    const out = new Writable({ write: (_c, _e, cb) => cb() });
    async function* pieces() {
      yield '{"a":';
      throw new Error('database gone');
    }
    const end = await writePieces(out, pieces(), 1_000);
    expect(end).toMatchObject({ ended: 'failed', err: new Error('database gone') });
    expect(out.destroyed).toBe(true);
  });
});

describe('chunks', () => {
  it('cuts a piece into chunks of the size, never between the halves of a surrogate pair', () => {
    const piece = 'ab😀cd😀😀e';
    for (const size of [2, 3, 4, 5]) {
      const parts = [...chunks(piece, size)];
      expect(parts.join('')).toBe(piece);
      for (const p of parts) {
        expect(p.length).toBeLessThanOrEqual(size);
        expect(Buffer.from(p, 'utf8').toString('utf8')).toBe(p);
      }
    }
    expect([...chunks('', 4)]).toEqual([]);
  });
});

describe('sendStream over a socket', () => {
  let server: http.Server | undefined;
  afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

  /** A server answering every request with `body`, reporting how the stream ended. */
  async function serve(body: () => StreamBody, sendTimeoutMs: number) {
    const ends: unknown[] = [];
    server = http.createServer((req, res) => {
      void sendStream(res, { status: 200, body: body() }, { head: req.method === 'HEAD', sendTimeoutMs }).then((e) =>
        ends.push(e.ended),
      );
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    return { port: (server.address() as AddressInfo).port, ends };
  }

  const until = async (what: () => boolean) => {
    while (!what()) await new Promise((r) => setTimeout(r, 10));
  };

  it('holds what it must until a paused client is cut: one piece pulled beyond the socket buffers, settled once', async () => {
    const { seen, pieces } = producer(1_000, 1_000_000);
    let settled = 0;
    const { port, ends } = await serve(() => {
      const b = new StreamBody('application/json', pieces);
      b.onSettled(() => settled++);
      return b;
    }, 300);
    const response = await new Promise<http.IncomingMessage>((resolve) =>
      http.get({ port, host: '127.0.0.1' }, (res) => {
        res.pause(); // reads the head, then stops reading
        resolve(res);
      }),
    );
    await until(() => ends.length === 1);
    expect(ends).toEqual(['idle']);
    expect(settled).toBe(1);
    expect(seen.closed).toBe(true);
    // Reading again, the client finds what the socket buffers held, then the cut: a truncated body.
    const got = await new Promise<{ bytes: number; complete: boolean }>((resolve) => {
      let bytes = 0;
      response.on('data', (c: Buffer) => (bytes += c.length));
      response.on('error', () => undefined);
      response.on('close', () => resolve({ bytes, complete: response.complete }));
      response.resume();
    });
    expect(got.complete).toBe(false);
    expect(got.bytes).toBeLessThan(seen.pulled * 1_000_000);
    // The kernel's socket buffers take a few pieces of 1 MB; the rest of 1,000 MB is never read.
    expect(seen.pulled).toBeLessThan(40);
  });

  it('answers HEAD with the head alone, pulling no piece', async () => {
    const { seen, pieces } = producer(10, 10);
    let settled = 0;
    const { port, ends } = await serve(() => {
      const b = new StreamBody('application/json', pieces);
      b.onSettled(() => settled++);
      return b;
    }, 1_000);
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe('');
    await until(() => ends.length === 1);
    expect(ends).toEqual(['complete']);
    expect(settled).toBe(1);
    expect(seen.pulled).toBe(0);
  });

  it('reports a client that leaves mid-stream as gone, not as a failure', async () => {
    const { seen, pieces } = producer(1_000, 1_000_000);
    const { port, ends } = await serve(() => new StreamBody('application/json', pieces), 10_000);
    await new Promise<void>((resolve) => {
      const req = http.get({ port, host: '127.0.0.1' }, (res) => {
        res.once('data', () => req.destroy());
        res.on('close', () => resolve());
      });
      req.on('error', () => undefined);
    });
    await until(() => ends.length === 1);
    expect(ends).toEqual(['client']);
    expect(seen.closed).toBe(true);
  });
});
