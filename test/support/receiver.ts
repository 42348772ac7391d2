import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { stack } from './api.js';

export interface Received {
  at: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A scripted answer: a status, or a status with headers (Retry-After, ...) and a body of its own. */
export type Answer = number | { status: number; headers?: Record<string, string>; body?: string };

/**
 * A real HTTPS webhook receiver on 127.0.0.1 with the test CA's certificate. `respond` decides
 * each answer (by default 200), so tests can script failures.
 */
export async function startReceiver(respond: (n: number, r: Received) => Answer = () => 200) {
  const received: Received[] = [];
  const server = https.createServer({ cert: stack().certPem, key: stack().keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { at: Date.now(), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(r);
      const answer = respond(received.length, r);
      const { status, headers, body } = typeof answer === 'number' ? { status: answer } : answer;
      res
        .writeHead(status, { 'content-type': 'text/plain', ...headers })
        .end(body ?? (status < 300 ? 'thanks' : `failing on purpose (${status})`));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/hook`,
    received,
    /** Connections open now (a killed sender's are closed by its kernel, after what it sent has arrived). */
    connections: () =>
      new Promise<number>((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n)))),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An HTTPS receiver that reads each request and never answers: every attempt hangs until the service's timeout. */
export async function startHangingReceiver() {
  const spans: { start: number; end?: number }[] = [];
  let open = 0;
  let maxOpen = 0;
  const server = https.createServer({ cert: stack().certPem, key: stack().keyPem }, (req) => {
    const span: { start: number; end?: number } = { start: Date.now() };
    spans.push(span);
    maxOpen = Math.max(maxOpen, ++open);
    req.resume();
    req.socket.once('close', () => {
      span.end = Date.now();
      open--;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/hang`,
    spans,
    maxOpen: () => maxOpen,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
