import { MetricsBuffer, Runtime } from '@temporalio/worker';
import type { Logger as TemporalLogger, LogLevel as TemporalLevel, LogMetadata } from '@temporalio/common';
import type { Logger, LogLevel } from '../observability/logger.js';
import { onScrape, registry } from '../metrics/registry.js';
import { TemporalMetrics } from '../metrics/temporal.js';

const OURS: Record<TemporalLevel, Exclude<LogLevel, 'silent'>> = {
  TRACE: 'debug',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};
const RANK: Record<TemporalLevel, number> = { TRACE: 0, DEBUG: 1, INFO: 2, WARN: 3, ERROR: 4 };

/** JSON-safe fields from the SDK's metadata (bigints as strings; symbol keys are not enumerable data). */
function fields(meta: LogMetadata | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta ?? {})) {
    if (v === undefined || k === 'sdkComponent') continue;
    out[k] = typeof v === 'bigint' ? v.toString() : v;
  }
  return out;
}

/**
 * The Temporal SDK's logger interface over ours: the worker's lifecycle ("Worker state changed"),
 * its activities' and workflows' context loggers and the forwarded lines of its Rust core become
 * one JSON line each, `component` naming the part of the SDK and its fields under `temporal` (so
 * they never overwrite ours: time, level, msg, role). Below `floor` a line is dropped.
 */
export function temporalLogger(log: Logger, floor: TemporalLevel = 'TRACE'): TemporalLogger {
  const write = (level: TemporalLevel, message: string, meta?: LogMetadata) => {
    if (RANK[level] < RANK[floor]) return;
    const rest = fields(meta);
    const component = meta?.sdkComponent as string | undefined;
    log[OURS[level] ?? 'info'](message, {
      component: `temporal${component ? `:${component}` : ''}`,
      ...(Object.keys(rest).length > 0 && { temporal: rest }),
    });
  };
  return {
    log: write,
    trace: (m, meta) => write('TRACE', m, meta),
    debug: (m, meta) => write('DEBUG', m, meta),
    info: (m, meta) => write('INFO', m, meta),
    warn: (m, meta) => write('WARN', m, meta),
    error: (m, meta) => write('ERROR', m, meta),
  };
}

/**
 * What the SDK's Rust core forwards: its warnings and errors, and its informational lines when
 * LOG_LEVEL=debug (its own debug level logs every poll). Libraries below it: errors only.
 */
export function coreLogFilter(level: LogLevel): { core: TemporalLevel; other: TemporalLevel } {
  return { core: level === 'debug' ? 'INFO' : 'WARN', other: 'ERROR' };
}

/** Drained every second between scrapes, well under the buffer's bound (updates past it are dropped). */
const DRAIN_EVERY_MS = 1_000;

let installed = false;

/**
 * Installs the process's Temporal runtime, once, before any worker or native connection: its logs go
 * to our logger, its metrics into our registry (metrics/temporal.ts). The Temporal client of the
 * api (grpc-js) does not use this runtime.
 */
export function installTemporalRuntime(log: Logger, level: LogLevel): void {
  if (installed) return;
  installed = true;
  const buffer = new MetricsBuffer({ maxBufferSize: 100_000, useSecondsForDurations: true });
  Runtime.install({
    logger: temporalLogger(log),
    // main.ts owns the shutdown order (servers, relay, worker, database, embedded services).
    shutdownSignals: [],
    telemetryOptions: {
      logging: { forward: {}, filter: coreLogFilter(level) },
      metrics: { buffer },
    },
  });
  const temporal = new TemporalMetrics(registry);
  const drain = () => temporal.apply(buffer.retrieveUpdates());
  onScrape(drain);
  setInterval(drain, DRAIN_EVERY_MS).unref();
}
