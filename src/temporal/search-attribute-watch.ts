import type { Connection } from '@temporalio/client';
import type { Logger } from '../observability/logger.js';
import type { SearchAttributeType } from './search-attributes.js';
import { ensureSearchAttributes } from './ensure-search-attributes.js';

export interface SearchAttributeWatch {
  /** Why the namespace lacks the search attributes (docs/operations.md), or undefined once it has them. */
  problem(): Promise<string | undefined>;
  stop(): void;
}

/** A check lists the attributes and adds at most a few: bounded so that a hung server cannot hold it. */
const CHECK_DEADLINE_MS = 5_000;
/** While they are missing: an operator who adds them (or frees a slot) sees `/readyz` follow within this. */
export const RECHECK_MS = 5_000;

/**
 * Every role that talks to Temporal runs this from its start, without waiting for it: the
 * namespace's search attributes are checked, the missing ones registered where the server allows
 * it, and the reason logged (once per change) when it does not. While they are missing the check
 * runs again every RECHECK_MS in the background, so a worker with no readiness probe still
 * registers them once Temporal is up; readiness reads the latest answer (only the very first
 * waits for its check), so a probe stays as cheap as before. Once they are all there the answer
 * is kept for the life of the process: we never remove them, and if an operator does, the relay's
 * log line names the server's reason for every refused start.
 */
export function watchSearchAttributes(deps: {
  connection: Connection;
  namespace: string;
  wanted: Record<string, SearchAttributeType>;
  log: Logger;
}): SearchAttributeWatch {
  const { connection, namespace, log } = deps;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let logged: string | undefined;
  const round = async (): Promise<string | undefined> => {
    const { registered, problem, answered } = await connection
      .withDeadline(Date.now() + CHECK_DEADLINE_MS, () => ensureSearchAttributes(connection, namespace, deps.wanted))
      .catch((err: Error) => ({ registered: [], problem: err.message, answered: false }));
    if (registered.length) log.info('Temporal search attributes registered', { namespace, registered });
    if (problem !== logged) {
      // The server said no: nothing will start until an operator acts. Not asked: Temporal is
      // probably still starting, and readiness says so on its own.
      if (problem && answered)
        log.error('Temporal namespace lacks search attributes: workflows that set them cannot start', {
          namespace,
          reason: problem,
        });
      else if (problem) log.warn('Temporal search attributes not checked yet', { namespace, reason: problem });
      else if (logged) log.info('Temporal search attributes present', { namespace });
      logged = problem;
    }
    if (problem && !stopped) {
      timer = setTimeout(() => void round().then((p) => (answer = Promise.resolve(p))), RECHECK_MS);
      timer.unref();
    }
    return problem;
  };
  let answer = round();
  return {
    problem: () => answer,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
