import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorCode } from '../../errors.js';

/**
 * Requests Node's HTTP parser refuses (request line or headers over the size limit, a request
 * target that is not a path, broken framing) never reach the router; by default Node answers them
 * with a bare status line. This answers them in the service's JSON error shape instead, with the
 * request id the gateway's answers carry. Returns the status answered, if any.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, requestId: string): number | undefined {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return undefined;
  }
  const [status, code, message]: [number, ErrorCode, string] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'payload_too_large', 'the request line and headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'invalid_argument', 'the request was not received in time']
        : [400, 'invalid_argument', 'malformed HTTP request'];
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
  return status;
}
