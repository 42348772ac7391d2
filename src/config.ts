import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { parseDuration, parseRetrySchedule } from './webhooks/retry-schedule.js';
import { compileTrustedProxies } from './transport/client-address.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const port = z.coerce.number().int().min(0).max(65535);

const schema = z.object({
  DATABASE_URL: z.string().url().optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(2).max(200).default(20),
  PORT: port.default(8080),
  GRPC_PORT: port.default(50051),
  HOST: z.string().default('0.0.0.0'),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('profiling'),
  TEMPORAL_UI_PORT: port.default(8233),
  TEMPORAL_CLI_PATH: z.string().min(1).optional(),
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  // Failed authentications one client address may make per window before it is answered 429.
  AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(20),
  AUTH_FAILURE_WINDOW_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(60_000),
  // How long an api process may reuse a valid key's lookup (0: look up every request). Revocations still apply at once.
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).max(300_000).default(10_000),
  // Load balancers whose X-Forwarded-For is believed (addresses, CIDRs, or loopback / linklocal / uniquelocal).
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((s, ctx) => {
      const list = s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      try {
        compileTrustedProxies(list);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
      return list;
    }),
  SECRETS_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)')
    .optional(),
  EMBEDDINGS_PROVIDER: z.enum(['local', 'openai']).default('local'),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.string().url().optional(),
  EMBEDDINGS_MODEL: z.string().min(1).default('text-embedding-3-small'),
  // Local embedder: threads, each with its own model (unset: the number of cores), and texts per model call.
  EMBEDDER_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  EMBEDDER_CALL_SIZE: z.coerce.number().int().min(1).max(1_000).default(8),
  // File cache of trained analysis heads on this machine ('off': none); PostgreSQL keeps them too.
  ANALYSIS_CACHE_DIR: z.string().min(1).optional(),
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('1m,5m,30m,2h,24h')
    .transform((s, ctx) => {
      try {
        return parseRetrySchedule(s);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  // A webhook whose deliveries have all failed this long is deactivated (as Svix: 5 days).
  WEBHOOK_DISABLE_AFTER: z
    .string()
    .default('5d')
    .transform((s, ctx) => {
      try {
        return parseDuration(s);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool.default(false),
  WORKER_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(8),
  // Analysis tasks a worker takes from Temporal at once (default 4 x WORKER_ACTIVITY_CONCURRENCY):
  // those over the running slots wait in the worker for their tenant's turn.
  WORKER_ANALYSIS_ACCEPT: z.coerce.number().int().min(1).max(1_000).optional(),
  // Scheduling niceness of a worker-role process: analysis yields the CPU to the api, PostgreSQL and Temporal.
  WORKER_NICE: z.coerce.number().int().min(0).max(19).default(10),
  // Deliveries yield to analysis (src/fairness/delivery-gate.ts): while analysis is under way (in
  // this worker, or a batch stored and not completed anywhere), new attempts start at most this
  // many per second per worker (0: never yield), and none waits longer than DELIVERY_YIELD_MAX_MS.
  DELIVERIES_PER_SECOND_WHILE_ANALYSING: z.coerce.number().min(0).max(10_000).default(10),
  DELIVERY_YIELD_MAX_MS: z.coerce.number().int().min(0).max(60_000).default(10_000),
  // Deliveries run on their own task queue and slots, so slow receivers never hold analysis slots.
  WORKER_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(32),
  WEBHOOK_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(100).default(4),
  TENANT_MAX_DELIVERIES_IN_FLIGHT: z.coerce.number().int().min(1).max(500).default(16),
  // Segment evaluations (after a deploy or a rule change) that run at once per tenant; more wait their turn.
  SEGMENT_EVALUATIONS_PER_TENANT: z.coerce.number().int().min(1).max(1_000).default(2),
  // Analysis slots are shared fairly between the tenants that have work (src/fairness/analysis-scheduler.ts).
  ANALYSIS_FAIR_SHARE: bool.default(true),
  // Quotas (see README "Quotas"): counts and sizes are 422 quota_exceeded, rates 429 with Retry-After.
  QUOTA_WEBHOOKS_PER_PIPELINE: z.coerce.number().int().min(1).max(10_000).default(50),
  QUOTA_SEGMENTS_PER_PIPELINE: z.coerce.number().int().min(1).max(10_000).default(100),
  QUOTA_SEMANTIC_CONDITIONS_PER_SEGMENT: z.coerce.number().int().min(0).max(200).default(25),
  QUOTA_RULE_NODES: z.coerce.number().int().min(1).max(500).default(50),
  QUOTA_RESENDS_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(30),
  QUOTA_RECOVERS_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(5),
  QUOTA_BATCHES_IN_FLIGHT: z.coerce.number().int().min(1).max(100_000).default(50),
  // Batch workflows of one tenant running at once; the tenant's other batches wait, stored, and
  // start as these complete (src/users/batch-lifecycle.ts).
  TENANT_BATCHES_RUNNING: z.coerce.number().int().min(1).max(100_000).default(4),
  BATCH_CHUNK_SIZE: z.coerce.number().int().min(1).max(2048).default(50),
  BATCH_PARALLEL_CHUNKS: z.coerce.number().int().min(1).max(64).default(4),
  DATA_DIR: z.string().min(1).default('.data'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
});

export type RawConfig = z.infer<typeof schema>;

export interface Config {
  databaseUrl?: string;
  databasePoolMax: number;
  http: { host: string; port: number };
  grpc: { host: string; port: number };
  temporal: {
    address?: string;
    namespace: string;
    taskQueue: string;
    uiPort: number;
    cliPath?: string;
  };
  adminToken?: string;
  /** Failed-authentication rate limit per client address (see auth/failure-limiter.ts). */
  authFailures: { limit: number; windowMs: number };
  authCacheTtlMs: number;
  /** TRUSTED_PROXIES, as proxy-addr reads them (empty: the connecting peer is the client). */
  trustedProxies: string[];
  secretsKey?: string;
  embeddings: {
    provider: 'local' | 'openai';
    openaiApiKey?: string;
    openaiBaseUrl?: string;
    model: string;
    /** Local embedder threads (unset: one per core) and texts per model call. */
    threads?: number;
    callSize: number;
    /** File cache of trained heads (undefined: none). */
    headsCacheDir?: string;
  };
  webhooks: {
    retryScheduleMs: number[];
    timeoutMs: number;
    allowPrivateNetworks: boolean;
    disableAfterMs: number;
  };
  worker: {
    activityConcurrency: number;
    /** Segment evaluations running at once per tenant (the relay admits more as they end). */
    evaluationsPerTenant: number;
    /** Analysis tasks taken at once (>= activityConcurrency); the extra ones wait for a turn. */
    analysisAccept: number;
    chunkSize: number;
    parallelChunks: number;
    nice: number;
    /** Slots of the delivery worker (its own task queue). */
    deliveryConcurrency: number;
    /** While the worker analyses, delivery attempts started per second (0: no yielding). */
    deliveryRateWhileAnalysing: number;
    deliveryYieldMaxMs: number;
    fairShare: boolean;
  };
  /** In-flight delivery attempts allowed per webhook and per tenant (per worker process). */
  deliveryLimits: { perWebhook: number; perTenant: number };
  quotas: Quotas;
  dataDir: string;
  logLevel: RawConfig['LOG_LEVEL'];
}

/** What one tenant may create or ask for; the defaults are documented in the README. */
export interface Quotas {
  webhooksPerPipeline: number;
  segmentsPerPipeline: number;
  semanticConditionsPerSegment: number;
  ruleNodes: number;
  resendsPerMinute: number;
  /** Recovers per webhook in any 60 s (each queues every finally failed event once). */
  recoversPerMinute: number;
  batchesInFlight: number;
  /** Batch workflows of one tenant that run at once; more wait, stored, for a place (not an error). */
  batchesRunning: number;
}

export class ConfigError extends Error {}

/** Parses the environment once; every bad variable is reported in one error. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings mean "unset" (docker-compose and shells often export VAR=).
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  if (c.EMBEDDINGS_PROVIDER === 'openai' && !c.OPENAI_API_KEY) {
    throw new ConfigError('Invalid configuration:\n  OPENAI_API_KEY: required when EMBEDDINGS_PROVIDER=openai');
  }
  return {
    databaseUrl: c.DATABASE_URL,
    databasePoolMax: c.DATABASE_POOL_MAX,
    http: { host: c.HOST, port: c.PORT },
    grpc: { host: c.HOST, port: c.GRPC_PORT },
    temporal: {
      address: c.TEMPORAL_ADDRESS,
      namespace: c.TEMPORAL_NAMESPACE,
      taskQueue: c.TEMPORAL_TASK_QUEUE,
      uiPort: c.TEMPORAL_UI_PORT,
      cliPath: c.TEMPORAL_CLI_PATH,
    },
    adminToken: c.ADMIN_TOKEN,
    authFailures: { limit: c.AUTH_FAILURE_LIMIT, windowMs: c.AUTH_FAILURE_WINDOW_MS },
    authCacheTtlMs: c.AUTH_CACHE_TTL_MS,
    trustedProxies: c.TRUSTED_PROXIES,
    secretsKey: c.SECRETS_KEY,
    embeddings: {
      provider: c.EMBEDDINGS_PROVIDER,
      openaiApiKey: c.OPENAI_API_KEY,
      openaiBaseUrl: c.OPENAI_BASE_URL,
      model: c.EMBEDDINGS_MODEL,
      threads: c.EMBEDDER_THREADS,
      callSize: c.EMBEDDER_CALL_SIZE,
      headsCacheDir: c.ANALYSIS_CACHE_DIR === 'off' ? undefined : (c.ANALYSIS_CACHE_DIR ?? defaultHeadsCacheDir(env)),
    },
    webhooks: {
      retryScheduleMs: c.WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: c.WEBHOOK_TIMEOUT_MS,
      allowPrivateNetworks: c.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      disableAfterMs: c.WEBHOOK_DISABLE_AFTER,
    },
    deliveryLimits: { perWebhook: c.WEBHOOK_MAX_IN_FLIGHT, perTenant: c.TENANT_MAX_DELIVERIES_IN_FLIGHT },
    quotas: {
      webhooksPerPipeline: c.QUOTA_WEBHOOKS_PER_PIPELINE,
      segmentsPerPipeline: c.QUOTA_SEGMENTS_PER_PIPELINE,
      semanticConditionsPerSegment: c.QUOTA_SEMANTIC_CONDITIONS_PER_SEGMENT,
      ruleNodes: c.QUOTA_RULE_NODES,
      resendsPerMinute: c.QUOTA_RESENDS_PER_MINUTE,
      recoversPerMinute: c.QUOTA_RECOVERS_PER_MINUTE,
      batchesInFlight: c.QUOTA_BATCHES_IN_FLIGHT,
      batchesRunning: c.TENANT_BATCHES_RUNNING,
    },
    worker: {
      deliveryConcurrency: c.WORKER_DELIVERY_CONCURRENCY,
      deliveryRateWhileAnalysing: c.DELIVERIES_PER_SECOND_WHILE_ANALYSING,
      deliveryYieldMaxMs: c.DELIVERY_YIELD_MAX_MS,
      fairShare: c.ANALYSIS_FAIR_SHARE,
      activityConcurrency: c.WORKER_ACTIVITY_CONCURRENCY,
      evaluationsPerTenant: c.SEGMENT_EVALUATIONS_PER_TENANT,
      analysisAccept: Math.max(
        c.WORKER_ACTIVITY_CONCURRENCY,
        c.WORKER_ANALYSIS_ACCEPT ?? 4 * c.WORKER_ACTIVITY_CONCURRENCY,
      ),
      nice: c.WORKER_NICE,
      chunkSize: c.BATCH_CHUNK_SIZE,
      parallelChunks: c.BATCH_PARALLEL_CHUNKS,
    },
    dataDir: c.DATA_DIR,
    logLevel: c.LOG_LEVEL,
  };
}

/** Where trained analysis heads are cached on this machine unless ANALYSIS_CACHE_DIR says otherwise. */
export function defaultHeadsCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'profiling-service', 'heads');
}
