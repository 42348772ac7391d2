import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorCode } from '../../errors.js';
import { lingered, lingeringClose, owedAnswer } from './connections.js';

/**
 * Requests Node's HTTP parser refuses (request line or headers over the size limit, a request
 * target that is not a path, broken framing) and requests not received whole in time never reach
 * the router; by default Node answers them with a bare status line and destroys the connection at
 * once. This answers them in the service's JSON error shape instead, with the request id the
 * gateway's answers carry, and closes the connection lingering (connections.ts) so the client can
 * read the answer. Returns the status answered, if any: none when the client is gone (a reset),
 * when the connection is already closing after an answer (what follows is dropped), or when an
 * earlier request's answer is still owed on it (it is sent, then the connection closes).
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket, requestId: string): number | undefined {
  if (lingered(socket)) return undefined;
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return undefined;
  }
  const owed = owedAnswer(socket);
  if (owed) {
    // That request keeps its answer; the connection closes after it, with nothing more parsed.
    owed.once('finish', () => lingeringClose(socket));
    return undefined;
  }
  const [status, code, message]: [number, ErrorCode, string] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'payload_too_large', 'the request line and headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'invalid_argument', 'the request was not received in time']
        : [400, 'invalid_argument', 'malformed HTTP request'];
  const body = JSON.stringify({ error: { code, message } });
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n` +
      `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
  );
  lingeringClose(socket);
  return status;
}
