import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import proxyaddr from 'proxy-addr';
import { parseRetrySchedule } from './durations.js';
import { parseFairnessOff, type FairnessMechanism } from './fairness-mechanisms.js';
import { FIXED_QUOTAS, type Quotas } from './quotas.js';
import { DEFAULT_METRICS_PORT, parseMetricsAddress } from './metrics/address.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const port = z.coerce.number().int().min(0).max(65535);

/**
 * Every variable the service reads (42). Tuning values that an operator has no reason to change
 * are constants next to the mechanism they tune; per-tenant limits are named TENANT_…; variables
 * of earlier versions are refused with what replaced them (RETIRED, below), never ignored.
 */
/**
 * `worker` polls both task queues; `analysis-worker` and `delivery-worker` poll one each, so an
 * operator scales analysis and deliveries apart (docs/operations.md).
 */
export const ROLES = ['api', 'worker', 'analysis-worker', 'delivery-worker', 'all'] as const;
export type Role = (typeof ROLES)[number];

const schema = z.object({
  // What this process runs (`--role` on the command line wins over it).
  ROLE: z.enum(ROLES).default('all'),
  // The machine's cache (XDG base directories): built Temporal binaries and trained heads live in
  // its profiling-service folder (machineCacheDir below reads it, as tools run before loadConfig do).
  XDG_CACHE_HOME: z.string().min(1).optional(),
  // Where trained analysis heads are cached; default the machine cache's heads/ folder. The test
  // run points it at a folder of its own (test/global-setup-heads.ts).
  HEADS_CACHE_DIR: z.string().min(1).optional(),
  // `on`: a fresh installation on the local model loads the heads shipped in data/heads/ (made by
  // `npm run train -- --ship`, checked fresh by CI) instead of training them for minutes; `off`
  // trains them from the corpus (docs/analysis.md#shipped-heads).
  HEADS_SHIPPED: z.enum(['on', 'off']).default('on'),
  DATABASE_URL: z.string().url().optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(2).max(200).default(20),
  PORT: port.default(8080),
  GRPC_PORT: port.default(50051),
  HOST: z.string().default('0.0.0.0'),
  // A streamed answer (the profile export) whose client takes nothing for this long is cut and its
  // tenant's place freed (src/transport/http/stream-body.ts), as nginx's send_timeout.
  HTTP_SEND_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  // A request (headers and body) not received whole in this long is answered 408 and its connection
  // closed (src/transport/http/connections.ts): a stalled upload holds a tenant place no longer.
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
  // A worker role's GET /metrics: `port` on 127.0.0.1, or `host:port` (src/metrics/address.ts).
  METRICS_PORT: z
    .string()
    .default(String(DEFAULT_METRICS_PORT))
    .transform((s, ctx) => {
      try {
        return parseMetricsAddress(s);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  // Prefix of this installation's task queues ('<prefix>-<installation id>', and '…-deliveries').
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('profiling'),
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  // Failed authentications one client address may make per minute before it is answered 429.
  AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(20),
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
        proxyaddr.compile(list); // what the edge compiles (transport/client-address.ts), checked here
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
  // Keys SECRETS_KEY replaced, comma-separated, newest first: still opened and matched, never used
  // for anything new (docs/operations.md, "Rotating SECRETS_KEY").
  SECRETS_KEY_PREVIOUS: z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^[0-9a-fA-F]{64}$/, 'each key must be 64 hex characters (32 bytes)'))),
  EMBEDDINGS_PROVIDER: z.enum(['local', 'openai']).default('local'),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_BASE_URL: z.string().url().optional(),
  EMBEDDINGS_MODEL: z.string().min(1).default('text-embedding-3-small'),
  // Local embedder threads, each with its own model (unset: the number of cores).
  EMBEDDER_THREADS: z.coerce.number().int().min(1).max(64).optional(),
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
  // How often a worker runs the retention sweep (privacy/retention.ts); a project's
  // message_retention_days says what it erases.
  RETENTION_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).default(60_000),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool.default(false),
  // Attempts in flight to one webhook, across all delivery workers.
  WEBHOOK_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(100).default(4),
  // Analysis activities a worker runs at once, and its delivery slots (their own task queue).
  WORKER_ACTIVITY_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(8),
  WORKER_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(32),
  // Per-tenant limits (docs/fairness.md): counts are 422 quota_exceeded, rates 429 with Retry-After.
  TENANT_DELIVERIES_IN_FLIGHT: z.coerce.number().int().min(1).max(500).default(16),
  TENANT_BATCHES_RUNNING: z.coerce.number().int().min(1).max(100_000).default(4),
  TENANT_BATCHES_IN_FLIGHT: z.coerce.number().int().min(1).max(100_000).default(50),
  TENANT_WEBHOOKS_PER_PIPELINE: z.coerce.number().int().min(1).max(10_000).default(50),
  TENANT_SEGMENTS_PER_PIPELINE: z.coerce.number().int().min(1).max(10_000).default(100),
  TENANT_PROJECTS: z.coerce.number().int().min(1).max(100_000).default(100),
  TENANT_PIPELINES_PER_PROJECT: z.coerce.number().int().min(1).max(10_000).default(10),
  // Each message is matched against every deployed segment of its project: this bounds a fold's work.
  TENANT_DEPLOYED_SEGMENTS_PER_PROJECT: z.coerce.number().int().min(1).max(10_000).default(100),
  // Custom labels (docs/labels.md): each ready label is scored on every message of its project.
  TENANT_LABELS_PER_PROJECT: z.coerce.number().int().min(1).max(1_000).default(50),
  TENANT_EXAMPLES_PER_LABEL: z.coerce.number().int().min(10).max(10_000).default(500),
  // Requests of one tenant an api process serves at once; a few more wait up to 2 s, then 429.
  TENANT_REQUESTS_IN_FLIGHT: z.coerce.number().int().min(1).max(1_000).default(8),
  // Fairness mechanisms switched off (comma-separated; src/fairness-mechanisms.ts). Default: none.
  FAIRNESS_OFF: z
    .string()
    .default('')
    .transform((s, ctx) => {
      try {
        return parseFairnessOff(s);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    }),
  DATA_DIR: z.string().min(1).default('.data'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
});

/** Variables of earlier versions: setting one is an error that says what replaced it. */
const RETIRED: Record<string, string> = {
  TENANT_MAX_DELIVERIES_IN_FLIGHT: 'renamed TENANT_DELIVERIES_IN_FLIGHT',
  QUOTA_BATCHES_IN_FLIGHT: 'renamed TENANT_BATCHES_IN_FLIGHT',
  QUOTA_WEBHOOKS_PER_PIPELINE: 'renamed TENANT_WEBHOOKS_PER_PIPELINE',
  QUOTA_SEGMENTS_PER_PIPELINE: 'renamed TENANT_SEGMENTS_PER_PIPELINE',
  QUOTA_RECOVERS_PER_MINUTE: 'now a constant: 5 per webhook per minute',
  QUOTA_RESENDS_PER_MINUTE: 'now a constant: 30 per webhook per minute',
  QUOTA_RULE_NODES: 'now a constant: 50 nodes per rule',
  QUOTA_SEMANTIC_CONDITIONS_PER_SEGMENT: 'now a constant: 25 per rule',
  ANALYSIS_FAIR_SHARE: 'removed with the analysis scheduler (tenants take turns through Temporal fairness keys)',
  DELIVERIES_PER_SECOND_WHILE_ANALYSING: 'now a constant (10); FAIRNESS_OFF=gate switches the gate off',
  DELIVERY_YIELD_MAX_MS: 'now a constant (10 s)',
  WORKER_NICE: 'now a constant (10); FAIRNESS_OFF=nice switches it off',
  WORKER_ANALYSIS_ACCEPT: 'now a constant: 4 x WORKER_ACTIVITY_CONCURRENCY',
  SEGMENT_EVALUATIONS_PER_TENANT: 'now a constant (2); FAIRNESS_OFF=evaluation-admission switches it off',
  BATCH_CHUNK_SIZE: 'now a constant (50 users per chunk)',
  BATCH_PARALLEL_CHUNKS: 'now a constant (4 chunks of a batch at once)',
  EMBEDDER_CALL_SIZE: 'now a constant (8 texts per model call)',
  AUTH_FAILURE_WINDOW_MS: 'now a constant (60 s); AUTH_FAILURE_LIMIT counts per minute',
  AUTH_CACHE_TTL_MS: 'now a constant (10 s)',
  ANALYSIS_CACHE_DIR: 'no longer read: trained heads are cached under $XDG_CACHE_HOME/profiling-service/heads',
  TEMPORAL_UI_PORT: 'no longer read: the embedded dev server UI is on 8233 (or a free port)',
  TEMPORAL_CLI_PATH: 'no longer read: put the temporal binary on PATH',
  WEBHOOK_DISABLE_AFTER: 'now a constant: 5 days of failed deliveries (as Svix)',
};

/** How many variables the service reads (the README's configuration table lists each). */
export const CONFIG_VARIABLES = Object.keys(schema.shape);

export type RawConfig = z.infer<typeof schema>;

/** The service's settings, as the code reads them: the schema's variables, shaped by toConfig. */
export type Config = ReturnType<typeof toConfig>;

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
  const retired = Object.keys(RETIRED).filter((k) => cleaned[k] !== undefined);
  if (retired.length) {
    throw new ConfigError(`Invalid configuration:\n${retired.map((k) => `  ${k}: ${RETIRED[k]}`).join('\n')}`);
  }
  if (c.EMBEDDINGS_PROVIDER === 'openai' && !c.OPENAI_API_KEY) {
    throw new ConfigError('Invalid configuration:\n  OPENAI_API_KEY: required when EMBEDDINGS_PROVIDER=openai');
  }
  return toConfig(c);
}

/** The schema's variables shaped as the code reads them (Config is what this answers). */
function toConfig(c: RawConfig) {
  const off = c.FAIRNESS_OFF;
  const quotas: Quotas = {
    ...FIXED_QUOTAS,
    webhooksPerPipeline: c.TENANT_WEBHOOKS_PER_PIPELINE,
    segmentsPerPipeline: c.TENANT_SEGMENTS_PER_PIPELINE,
    batchesInFlight: c.TENANT_BATCHES_IN_FLIGHT,
    projectsPerTenant: c.TENANT_PROJECTS,
    pipelinesPerProject: c.TENANT_PIPELINES_PER_PROJECT,
    deployedSegmentsPerProject: c.TENANT_DEPLOYED_SEGMENTS_PER_PROJECT,
    labelsPerProject: c.TENANT_LABELS_PER_PROJECT,
    examplesPerLabel: c.TENANT_EXAMPLES_PER_LABEL,
    // Switched off, a tenant's batches all start at once (the bound stays a number for SQL).
    batchesRunning: off.has('batch-admission') ? 100_000 : c.TENANT_BATCHES_RUNNING,
  };
  return {
    role: c.ROLE,
    databaseUrl: c.DATABASE_URL,
    databasePoolMax: c.DATABASE_POOL_MAX,
    /**
     * sendTimeoutMs: how long a streamed answer waits for its client to take a chunk before it is
     * cut; requestTimeoutMs: how long a request may take to arrive whole before its 408.
     */
    http: {
      host: c.HOST,
      port: c.PORT,
      sendTimeoutMs: c.HTTP_SEND_TIMEOUT_MS,
      requestTimeoutMs: c.HTTP_REQUEST_TIMEOUT_MS,
    },
    grpc: { host: c.HOST, port: c.GRPC_PORT },
    /** Where a worker role serves GET /metrics (the api serves it on its gateway port). */
    metrics: c.METRICS_PORT,
    temporal: { address: c.TEMPORAL_ADDRESS, namespace: c.TEMPORAL_NAMESPACE, taskQueue: c.TEMPORAL_TASK_QUEUE },
    adminToken: c.ADMIN_TOKEN,
    /** Failed authentications per client address per minute (see auth/failure-limiter.ts). */
    authFailureLimit: c.AUTH_FAILURE_LIMIT,
    /** TRUSTED_PROXIES, as proxy-addr reads them (empty: the connecting peer is the client). */
    trustedProxies: c.TRUSTED_PROXIES,
    secretsKey: c.SECRETS_KEY,
    /** SECRETS_KEY_PREVIOUS: keys SECRETS_KEY replaced, newest first. */
    secretsKeysPrevious: c.SECRETS_KEY_PREVIOUS,
    embeddings: {
      provider: c.EMBEDDINGS_PROVIDER,
      openaiApiKey: c.OPENAI_API_KEY,
      openaiBaseUrl: c.OPENAI_BASE_URL,
      model: c.EMBEDDINGS_MODEL,
      /** Local embedder threads (unset: one per core). */
      threads: c.EMBEDDER_THREADS,
    },
    webhooks: {
      retryScheduleMs: c.WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: c.WEBHOOK_TIMEOUT_MS,
      allowPrivateNetworks: c.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    },
    /** Requests of one tenant served at once by one api process (fairness/tenant-requests.ts). */
    tenantRequestsInFlight: c.TENANT_REQUESTS_IN_FLIGHT,
    /** In-flight delivery attempts allowed per webhook and per tenant, across all delivery workers. */
    deliveryLimits: { perWebhook: c.WEBHOOK_MAX_IN_FLIGHT, perTenant: c.TENANT_DELIVERIES_IN_FLIGHT },
    quotas,
    worker: {
      activityConcurrency: c.WORKER_ACTIVITY_CONCURRENCY,
      /** Slots of the delivery worker (its own task queue). */
      deliveryConcurrency: c.WORKER_DELIVERY_CONCURRENCY,
    },
    /** Fairness mechanisms switched off (FAIRNESS_OFF). */
    fairnessOff: off as ReadonlySet<FairnessMechanism>,
    /** Every how many ms a worker sweeps message texts past their project's retention. */
    retentionSweepMs: c.RETENTION_SWEEP_INTERVAL_MS,
    dataDir: c.DATA_DIR,
    logLevel: c.LOG_LEVEL,
    /** `auto`: readable lines on a terminal, JSON lines otherwise (observability/logger.ts). */
    logFormat: c.LOG_FORMAT,
  };
}

/** This machine's cache of the service (`$XDG_CACHE_HOME/profiling-service/<name>`): built binaries, trained heads. */
export function machineCacheDir(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'profiling-service', name);
}

/**
 * The environment a child tool (`go install`) runs with: the process's own (PATH, HOME, GOPROXY are
 * the tool's settings, not the service's), plus `extra`. Read here so that src/ reads the
 * environment in this file only.
 */
export function toolEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

/** The folders the operating system searches for executables (PATH), as a shell would. */
export function executableSearchPath(): string[] {
  return (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
}

/** Whether the heads shipped in data/heads/ may be used (HEADS_SHIPPED, validated by loadConfig). */
export function shippedHeadsOn(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.HEADS_SHIPPED !== 'off';
}

/** Where trained analysis heads are cached: HEADS_CACHE_DIR, or this machine's cache. */
export function defaultHeadsCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.HEADS_CACHE_DIR || machineCacheDir('heads', env);
}
