import type { HealthImplementation, ServingStatus } from 'grpc-health-check';
import type { Logger } from '../../observability/logger.js';
import type { Readiness } from '../readiness.js';

/**
 * Keeps the standard health service in step with `/readyz`: every `everyMs` the same checks run
 * (PostgreSQL, Temporal) and the server ('') and each service report SERVING or NOT_SERVING.
 * Checks never overlap (the next one is scheduled after the last answered), and a status is only
 * set when it changes, so a Watch stream hears transitions, not a tick every few seconds.
 */
export function followReadiness(deps: {
  health: HealthImplementation;
  services: string[];
  check: () => Promise<Readiness>;
  log: Logger;
  everyMs: number;
}): { stop(): void } {
  let current: ServingStatus = 'SERVING';
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const set = (next: ServingStatus) => {
    if (next === current) return;
    current = next;
    for (const service of ['', ...deps.services]) deps.health.setStatus(service, next);
  };
  const tick = async () => {
    const r = await deps.check().catch(() => ({ ready: false, database: false, temporal: false }));
    if (stopped) return;
    const next = r.ready ? 'SERVING' : 'NOT_SERVING';
    if (next !== current)
      (next === 'SERVING' ? deps.log.info : deps.log.warn)(`gRPC health: ${next}`, {
        database: r.database,
        temporal: r.temporal,
      });
    set(next);
    timer = setTimeout(() => void tick(), deps.everyMs);
    timer.unref();
  };
  void tick();
  return {
    /** NOT_SERVING from now on: a server shutting down tells its load balancer first. */
    stop() {
      stopped = true;
      clearTimeout(timer);
      set('NOT_SERVING');
    },
  };
}
