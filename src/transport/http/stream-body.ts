import type { ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import type { Logger } from '../../observability/logger.js';

/**
 * Characters handed to the socket at once. The send timeout sees progress a chunk at a time: a
 * client that takes less than this in HTTP_SEND_TIMEOUT_MS is cut, one that reads slowly is not.
 */
export const STREAM_CHUNK_CHARS = 16_384;

/**
 * A reply body written piece by piece as the pieces are pulled (the profile export). The next
 * piece is pulled only when the client has taken the last one, so an open stream holds one piece,
 * and whatever must last as long as the stream (the tenant's place) is given back by `onSettled`
 * once its last byte is written, its client is gone or it is cut.
 */
export class StreamBody {
  private readonly settled: (() => void)[] = [];

  constructor(
    readonly contentType: string,
    readonly pieces: AsyncIterable<string>,
  ) {}

  /** Runs `fn` once when the stream has settled, however it ended. */
  onSettled(fn: () => void): void {
    this.settled.push(fn);
  }

  settle(): void {
    for (const fn of this.settled.splice(0)) fn();
  }
}

/** How a stream ended: written to its last byte, its client gone, cut for idleness, or failed. */
export type StreamEnd =
  { ended: 'complete' } | { ended: 'client' } | { ended: 'idle' } | { ended: 'failed'; err: unknown };

/**
 * Sends a streamed reply (chunked) and settles its body whatever happens. A HEAD gets the head
 * alone: no piece is pulled, so nothing behind them is read. A failure after the head is sent
 * cannot become an error answer: the connection is cut, so the client sees a truncated body,
 * never a complete-looking one.
 */
export async function sendStream(
  res: ServerResponse,
  reply: { status: number; body: StreamBody; headers?: Record<string, string> },
  opts: { head: boolean; sendTimeoutMs: number },
): Promise<StreamEnd> {
  try {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.writeHead(reply.status, { 'Content-Type': reply.body.contentType, ...reply.headers });
    if (opts.head) {
      res.end();
      return { ended: 'complete' };
    }
    return await writePieces(res, reply.body.pieces, opts.sendTimeoutMs);
  } finally {
    reply.body.settle();
  }
}

/**
 * Writes the pieces in chunks, each after the client took the last (the socket's backpressure):
 * nothing is read ahead of a slow client. A client that takes nothing for `sendTimeoutMs` (as
 * nginx's send_timeout) is cut; the pieces are closed however it ends, so a producer paused at a
 * page reads no more.
 */
export async function writePieces(
  out: Writable | ServerResponse,
  pieces: AsyncIterable<string>,
  sendTimeoutMs: number,
): Promise<StreamEnd> {
  const it = pieces[Symbol.asyncIterator]();
  // A socket error after the client left must not become an unhandled 'error' event.
  const ignore = () => undefined;
  out.on('error', ignore);
  try {
    for (;;) {
      let next: IteratorResult<string>;
      try {
        next = await it.next();
      } catch (err) {
        out.destroy();
        return { ended: 'failed', err };
      }
      if (out.destroyed) return { ended: 'client' };
      if (next.done) break;
      for (const chunk of chunks(next.value)) {
        if (out.write(chunk)) continue;
        const waited = await progress(out, 'drain', sendTimeoutMs);
        if (waited !== 'taken') return cut(out, waited);
      }
    }
    out.end();
    const waited = await progress(out, 'finish', sendTimeoutMs);
    return waited === 'taken' ? { ended: 'complete' } : cut(out, waited);
  } finally {
    out.off('error', ignore);
    // Closes a generator paused at a page (nothing more is read); a failed one is already closed.
    await it.return?.().catch(() => undefined);
  }
}

function cut(out: Writable | ServerResponse, why: 'gone' | 'idle'): StreamEnd {
  out.destroy();
  return { ended: why === 'gone' ? 'client' : 'idle' };
}

/**
 * Waits until the client took what was written (`drain`, or `finish` for the end), the
 * connection closed (`gone`), or `ms` passed without either (`idle`).
 */
function progress(out: Writable | ServerResponse, event: 'drain' | 'finish', ms: number) {
  if (out.destroyed) return Promise.resolve('gone' as const);
  if (event === 'finish' && out.writableFinished) return Promise.resolve('taken' as const);
  return new Promise<'taken' | 'gone' | 'idle'>((resolve) => {
    const settle = (result: 'taken' | 'gone' | 'idle') => {
      clearTimeout(timer);
      out.off(event, taken);
      out.off('close', gone);
      resolve(result);
    };
    const taken = () => settle('taken');
    const gone = () => settle(out.writableFinished && event === 'finish' ? 'taken' : 'gone');
    const timer = setTimeout(() => settle('idle'), ms);
    out.once(event, taken);
    out.once('close', gone);
  });
}

/**
 * A piece as chunks of at most STREAM_CHUNK_CHARS, never splitting a surrogate pair (each chunk
 * is encoded alone: half a pair would be written as U+FFFD).
 */
export function* chunks(piece: string, size = STREAM_CHUNK_CHARS): Generator<string> {
  for (let at = 0; at < piece.length;) {
    let end = Math.min(at + size, piece.length);
    const code = piece.charCodeAt(end - 1);
    if (end < piece.length && end - at > 1 && code >= 0xd800 && code <= 0xdbff) end--;
    yield piece.slice(at, end);
    at = end;
  }
}

/**
 * The log line of a stream that did not end complete. A client that leaves or stops reading is
 * the client's doing: info, never an error (any tenant could fill the error log with them).
 */
export function logStreamEnd(log: Logger, end: StreamEnd, route: string, sendTimeoutMs: number): void {
  if (end.ended === 'client') log.info('streamed answer ended by the client', { route });
  else if (end.ended === 'idle')
    log.info('streamed answer cut: the client took nothing for the send timeout', {
      route,
      send_timeout_ms: sendTimeoutMs,
    });
  else if (end.ended === 'failed') log.error('streamed answer failed', { route, err: end.err });
}
