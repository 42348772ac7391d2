/**
 * One HTTP attempt of a webhook delivery. Every outcome (answer, refusal, timeout, network or TLS
 * failure) comes back as a result to record; nothing here throws for the network.
 *
 * Safety rules:
 * - https only, and the host is resolved and checked on every attempt (ssrf.ts); a socket only ever
 *   connects to checked addresses through a pinned `lookup`, so a DNS answer that changes between
 *   the check and the connection (DNS rebinding) cannot send us elsewhere. TLS SNI, the certificate
 *   check and the Host header still use the host name.
 * - Connections are kept alive in one agent per (host, port, checked address set): an attempt only
 *   reuses a socket that was opened to the very addresses its own check approved. A new TLS
 *   connection per attempt cost the receiver and us a handshake on every delivery.
 * - Redirects are not followed: a 3xx is a failed attempt and its Location is never contacted.
 * - Certificates are verified against Node's default CA store. Operators with a private CA add it
 *   through NODE_EXTRA_CA_CERTS; there is deliberately no option to pass a CA or skip verification.
 */
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { LRUCache } from 'lru-cache';
import { StringDecoder } from 'node:string_decoder';
import { resolveAndCheck, SsrfError, type CheckedTarget } from './ssrf.js';
import { parseRetryAfter } from './retry-after.js';

/** How much of a receiver's answer is read and kept. */
export const MAX_RESPONSE_BYTES = 4096;

/** Resolves a URL's host and checks its addresses (ssrf.ts); the connection goes to what it returns. */
export type ResolveTarget = (host: string, allowPrivate: boolean) => Promise<CheckedTarget>;

export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  /**
   * Defaults to `resolveAndCheck` with the system resolver. Tests pass their own to give a test
   * host name an address (a local listener) without touching DNS.
   */
  resolveTarget?: ResolveTarget;
}

export interface AttemptResult {
  ok: boolean;
  /** 0 when no HTTP answer arrived. */
  statusCode: number;
  /** The first 4 KB of the answer, or why there was none. */
  responseBody: string;
  durationMs: number;
  /** Why the attempt failed, when it did. */
  error?: string;
  /** A 429 or 503's `Retry-After`, in ms from now (capped at 24 h), when it gave a readable one. */
  retryAfterMs?: number;
}

interface Answer {
  statusCode: number;
  body: string;
  location?: string;
  retryAfter?: string | string[];
}

export async function sendWebhook(args: WebhookRequest): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (reason: string): AttemptResult => ({
    ok: false,
    statusCode: 0,
    responseBody: reason,
    durationMs: elapsed(),
    error: reason,
  });

  let url: URL;
  try {
    url = new URL(args.url);
  } catch {
    return failed('refused: not a valid URL');
  }
  if (url.protocol !== 'https:') return failed('refused: only https:// URLs are allowed');

  // One deadline for the whole attempt: DNS, connect, TLS, and the answer.
  const deadline = AbortSignal.timeout(args.timeoutMs);
  try {
    const resolve = args.resolveTarget ?? ((host, allowPrivate) => resolveAndCheck(host, allowPrivate));
    const target = await untilAborted(resolve(url.hostname, args.allowPrivateNetworks), deadline);
    let answer: Answer;
    try {
      answer = await post(url, target, args, deadline);
    } catch (err) {
      // A kept-alive socket the receiver closed just as we wrote to it: nothing was answered, so
      // the attempt goes again once on a new connection (Node's documented pattern).
      if (!(err as { reusedSocket?: boolean }).reusedSocket || deadline.aborted) throw err;
      answer = await post(url, target, args, deadline);
    }
    return judge(answer, elapsed());
  } catch (err) {
    return failed(deadline.aborted ? `timeout after ${args.timeoutMs} ms` : describeFailure(err, url.hostname));
  }
}

function judge(answer: Answer, durationMs: number): AttemptResult {
  const { statusCode, body } = answer;
  if (statusCode >= 200 && statusCode < 300) return { ok: true, statusCode, responseBody: body, durationMs };
  const reason =
    statusCode >= 300 && statusCode < 400
      ? `redirect not followed (${statusCode}${answer.location ? ` to ${answer.location}` : ''})`
      : `receiver answered ${statusCode}`;
  // Keep the receiver's own words when it gave some; they are what the customer needs to debug.
  const responseBody = statusCode >= 400 && body !== '' ? body : reason.slice(0, MAX_RESPONSE_BYTES);
  const retryAfterMs =
    statusCode === 429 || statusCode === 503 ? parseRetryAfter(answer.retryAfter, new Date()) : undefined;
  return {
    ok: false,
    statusCode,
    responseBody,
    durationMs,
    error: reason,
    ...(retryAfterMs !== undefined && { retryAfterMs }),
  };
}

/**
 * Idle sockets are closed after 4 s: under the 5 s keep-alive timeout of Node's and many other
 * servers, so we rarely write to a socket the receiver is closing. Agents of receivers not seen for
 * a while are evicted (and their sockets closed) when more than 1,000 are kept.
 */
const IDLE_SOCKET_MS = 4_000;
const agents = new LRUCache<string, https.Agent>({
  max: 1_000,
  dispose: (agent) => agent.destroy(),
});

function agentFor(host: string, port: number, target: CheckedTarget): https.Agent {
  const key = `${host}|${port}|${target.all
    .map((a) => a.address)
    .sort()
    .join(',')}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, maxFreeSockets: 16, scheduling: 'lifo' });
    agents.set(key, agent);
  }
  return agent;
}

/** A `lookup` that answers with the already checked addresses instead of asking DNS again. */
function pinnedLookup(target: CheckedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    // With autoSelectFamily (Node's default) net asks for all addresses and tries them in turn.
    if (options.all) callback(null, target.all);
    else callback(null, target.address, target.family);
  };
}

function post(url: URL, target: CheckedTarget, args: WebhookRequest, signal: AbortSignal): Promise<Answer> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise<Answer>((resolve, reject) => {
    // Set once the status line arrived: from then on the verdict is known, and an error (the
    // deadline aborting a body that never ends, a reset mid-body) only ends the reading.
    let answered: (() => void) | undefined;
    const port = url.port === '' ? 443 : Number(url.port);
    const req = https.request(
      {
        method: 'POST',
        host,
        port,
        path: `${url.pathname}${url.search}`,
        headers: { ...args.headers, 'Content-Length': String(Buffer.byteLength(args.body)) },
        lookup: pinnedLookup(target),
        agent: agentFor(host, port, target),
        signal,
      },
      (res) => {
        const decoder = new StringDecoder('utf8');
        let size = 0;
        let body = '';
        // Once the status line arrived the receiver has answered; the body is best effort, so a
        // stalled or oversized body ends reading without changing the verdict.
        const finish = () =>
          resolve({
            statusCode: res.statusCode ?? 0,
            body,
            location: res.headers.location,
            retryAfter: res.headers['retry-after'],
          });
        res.on('data', (chunk: Buffer) => {
          const part = chunk.subarray(0, MAX_RESPONSE_BYTES - size);
          size += part.length;
          // StringDecoder holds back a multi-byte character cut at the limit instead of mangling it.
          body += decoder.write(part);
          if (size >= MAX_RESPONSE_BYTES) {
            finish();
            res.destroy();
          }
        });
        answered = finish;
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    req.on('error', (err) => {
      if (answered) return answered();
      const code = (err as NodeJS.ErrnoException).code;
      if (req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE')) Object.assign(err, { reusedSocket: true });
      reject(err);
    });
    req.end(args.body);
  });
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO|^ERR_TLS_|^ERR_SSL_|^EPROTO$/;

/** A short reason a customer can act on, from a resolver, socket or TLS error. */
function describeFailure(err: unknown, hostname: string): string {
  if (err instanceof SsrfError) return err.message;
  const e = err as NodeJS.ErrnoException;
  const code = e?.code ?? '';
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection closed by the receiver before it answered';
    case 'ENOTFOUND':
      return `DNS lookup failed: ${hostname} not found`;
    case 'EAI_AGAIN':
      return `DNS lookup failed: temporary failure resolving ${hostname}`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'ETIMEDOUT':
      return 'connection timed out';
  }
  if (TLS_CODES.test(code)) return `TLS error: ${e.message}`;
  return `request failed: ${e?.message ?? String(err)}`;
}
