import type http from 'node:http';
import type { Socket } from 'node:net';
import { MAX_REQUEST_BYTES } from '../limits.js';

/**
 * How long an idle keep-alive connection stays open: longer than the 60 s idle timeout of the
 * usual proxies (AWS ALB, nginx's upstream keepalive), so a proxy in front, which sends the next
 * request, is the side that closes. Node closes 1 s after it.
 */
export const KEEP_ALIVE_MS = 65_000;

/**
 * What keep-alive answers advertise (`Keep-Alive: timeout=5`), far below KEEP_ALIVE_MS. A client
 * that reads it (undici closes 2 s before it, Node's agent 1 s) drops an idle connection a minute
 * before the api does, so it never sends on a connection the api is closing. Node advertises
 * KEEP_ALIVE_MS itself: undici then reused connections up to 63 s, 3 s from the api's close, and a
 * stall of either process on a loaded machine was enough for a request to meet the close.
 */
export const KEEP_ALIVE_HINT_SECONDS = 5;

/**
 * A request must be received whole within this (headers included): past it, 408 (client-error.ts).
 * The default of HTTP_REQUEST_TIMEOUT_MS.
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/** How often Node looks for requests past their timeout (its default, 30 s, doubled the wait). */
const TIMEOUT_CHECK_MS = 2_000;

/**
 * After its last answer, a connection that is closed while the client may still be sending (a
 * refusal before the body was read) reads and drops at most this much more, and is closed this
 * long after the answer (or when the client closes its side).
 */
export const LINGER = { bytes: MAX_REQUEST_BYTES, ms: 5_000 };

/** The gateway's server options, with its request timeout (HTTP_REQUEST_TIMEOUT_MS). */
export function serverOptions(requestTimeoutMs = REQUEST_TIMEOUT_MS): http.ServerOptions {
  return {
    keepAliveTimeout: KEEP_ALIVE_MS,
    requestTimeout: requestTimeoutMs,
    headersTimeout: requestTimeoutMs,
    connectionsCheckingInterval: TIMEOUT_CHECK_MS,
  };
}

/** The response being written on each connection, for a parser error that arrives meanwhile. */
const responses = new WeakMap<Socket, http.ServerResponse>();

/**
 * Connection handling that never drops a request without an answer: the keep-alive hint, and an
 * idle close that spares a connection whose next request has already arrived.
 */
export function manageConnections(server: http.Server): void {
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    responses.set(req.socket, res);
    if (res.shouldKeepAlive) res.setHeader('Keep-Alive', `timeout=${KEEP_ALIVE_HINT_SECONDS}`);
  });
  // With a listener here Node no longer closes idle connections itself. The idle timer runs before
  // the event loop reads its sockets: after a stall (a busy event loop, a descheduled process) it
  // fires although the next request's bytes are already waiting, and closing then drops that
  // request unanswered (with a reset, as unread bytes are discarded). One turn later the poll
  // phase has read them; a connection that received anything is left to its request.
  server.on('timeout', (socket: Socket) => {
    const seen = socket.bytesRead;
    setImmediate(() => {
      if (socket.bytesRead === seen) socket.destroy();
    });
  });
}

/**
 * The answer still owed to an earlier request on the connection, if any: begun and not ended (a
 * second one would corrupt it), or not begun while its request arrived whole and is being handled
 * (a refusal written now would be read as that request's answer, a stored batch answered 400).
 * Bytes Node's parser refuses after it belong to a later request. An answer that ended is whole on
 * the socket; the next request's refusal follows it.
 */
export function owedAnswer(socket: Socket): http.ServerResponse | undefined {
  const res = responses.get(socket);
  if (!res || res.writableEnded) return undefined;
  return res.headersSent || res.req.complete ? res : undefined;
}

/** Byte count at which each lingering connection began to linger. */
const lingering = new WeakMap<Socket, number>();

/**
 * Closes a connection after its last answer without losing that answer (RFC 9112 §9.6, "lingering
 * close"): its write side is ended after the answer, and what the client still sends is read and
 * dropped, at most LINGER.bytes of it, until the client closes its side or LINGER.ms passed. Closing
 * at once with unread bytes makes the kernel send a reset, which can reach the client before it
 * has read the answer and make it throw the answer away.
 */
export function lingeringClose(socket: Socket, limits = LINGER): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.set(socket, socket.bytesRead);
  socket.end();
  const timer = setTimeout(() => socket.destroy(), limits.ms);
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
}

/**
 * For bytes arriving on a connection: false if it is not lingering; else true, and once past its
 * bound nothing more is read: `stop` (the request, whose pause holds the parser back, which stops
 * the socket) or else the socket is paused. The connection is not destroyed there: the bytes past
 * the bound may have been sent before the client could see the answer (the kernels buffer several
 * MB on a fast link), and a close with unread bytes is a reset, which can make the client's kernel
 * drop the answer it has not read yet (seen on a loaded machine: a refusal without an answer). It
 * closes when LINGER.ms has passed, or when the client closes its side.
 */
export function lingered(socket: Socket, limits = LINGER, stop: { pause(): unknown } = socket): boolean {
  const from = lingering.get(socket);
  if (from === undefined) return false;
  if (socket.bytesRead - from > limits.bytes) stop.pause();
  return true;
}

/**
 * Prepares an answer sent before the request's body was read whole (a refusal): it says
 * `Connection: close`, the rest of the body is read and dropped, and the connection then closes
 * lingering. Node would end and destroy the socket as soon as such an answer is written, with the
 * rest of the body unread: its `destroySoon` is replaced on this socket by the lingering close.
 */
export function closeAfterAnswer(req: http.IncomingMessage, res: http.ServerResponse, limits = LINGER): void {
  const socket = req.socket;
  res.setHeader('Connection', 'close');
  res.removeHeader('Keep-Alive');
  socket.destroySoon = () => lingeringClose(socket, limits);
  req.on('data', () => lingered(socket, limits, req));
  req.resume();
}
