import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/**
 * The request a piece of work belongs to, carried through every await of its handling, so that
 * any log line written on the way names it without the id being passed down (the logger reads it).
 */
interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * What a caller's `X-Request-Id` (gRPC `x-request-id`) may be: 1 to 128 of letters, digits and
 * `._:-`. That covers UUIDs, ULIDs and the ids proxies and tracers generate, and keeps log lines
 * and headers free of spaces, quotes and control characters.
 */
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The caller's id when it is well-formed, else a new UUID. A malformed id is replaced rather than
 * refused: a request id is a tracing aid, and a request must not fail for the sake of its label.
 * A repeated header (an array, or values Node joined with ", ") is malformed.
 */
export function acceptRequestId(given: unknown): string {
  return typeof given === 'string' && WELL_FORMED.test(given) ? given : randomUUID();
}

/** Runs `fn` as part of the request `requestId`: what it logs, however deep, carries the id. */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

/** The id of the request being handled here, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
