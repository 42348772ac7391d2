// The knex type itself, not knex.ts's alias: knex.ts calls watchPool, and the two must not import each other.
import type { Knex as Db } from 'knex';
import { databaseFault } from '../errors.js';

interface TarnEvents {
  on(event: 'createFail', fn: (eventId: number, err: Error) => void): void;
  on(event: 'createSuccess', fn: (eventId: number, resource: unknown) => void): void;
}

/** The last failed connection creation of each pool, until one succeeds. */
const lastCreateFailure = new WeakMap<Db, { err?: Error }>();

/**
 * Follows a pool's connection creations. A pool that still holds idle connections answers
 * `SELECT 1` while PostgreSQL refuses every new session (`too many clients`, a role's connection
 * limit, a restart in progress), so a readiness probe that only queries would say ready while new
 * work fails: this remembers the refusal until a creation succeeds again.
 */
export function watchPool(db: Db): void {
  const state: { err?: Error } = {};
  lastCreateFailure.set(db, state);
  const pool = (db.client as { pool?: TarnEvents }).pool;
  pool?.on('createFail', (_id, err) => (state.err = err));
  pool?.on('createSuccess', () => (state.err = undefined));
}

interface RawConnections {
  acquireRawConnection(): Promise<unknown>;
  destroyRawConnection(connection: unknown): Promise<void>;
}

/**
 * Undefined when the pool can open connections; else why not. After a refused creation it tries one
 * fresh connection (outside the pool, closed at once), so readiness comes back as soon as
 * PostgreSQL accepts sessions again, without waiting for the pool to need one.
 */
export async function whyPoolCannotConnect(db: Db): Promise<string | undefined> {
  const state = lastCreateFailure.get(db);
  if (!state?.err) return undefined;
  const client = db.client as unknown as RawConnections;
  try {
    await client.destroyRawConnection(await client.acquireRawConnection());
    state.err = undefined;
    return undefined;
  } catch (err) {
    state.err = err as Error;
    return whyNoSession(err);
  }
}

/**
 * Why a query or a session failed, as a fixed sentence (/readyz is open, and PostgreSQL's messages
 * name roles and addresses): refused sessions (class 53) say so with their SQLSTATE.
 */
export function whyNoSession(err: unknown): string {
  if (databaseFault(err)?.kind !== 'refusing') return 'PostgreSQL does not answer';
  return `PostgreSQL refuses new sessions (SQLSTATE ${(err as { code: string }).code})`;
}
