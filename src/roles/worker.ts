import type { Config } from '../config.js';
import type { Db } from '../db/knex.js';
import type { Logger } from '../logger.js';
import type { Starters } from '../temporal/starters.js';
import { createAnalyzer, type Analyzer } from '../analysis/analyze.js';
import { createEmbedder } from '../analysis/embedder.js';
import { createSemanticCache } from '../segments/semantic-cache.js';
import { createActivities } from '../temporal/activities.js';
import { createWorker } from '../temporal/worker.js';
import { startRelay } from '../outbox/relay.js';

export async function startWorkerRole(deps: {
  config: Config;
  db: Db;
  databaseUrl: string;
  temporalAddress: string;
  /** This installation's task queue (see installationTaskQueue). */
  taskQueue: string;
  starters: Starters;
  box: { open(sealed: string): string };
  log: Logger;
}) {
  const { config, db, log } = deps;
  // The model and its heads (stored, or trained on this embedder's vectors of the corpus) are loaded
  // once per worker process, in the background, so the worker polls at once. A failed load (the
  // embedding API away, PostgreSQL restarting) is tried again by the next activity that needs it.
  const embedder = createEmbedder(config.embeddings);
  let analyzerPromise: Promise<Analyzer> | undefined;
  const analyzer = () =>
    (analyzerPromise ??= createAnalyzer(embedder, { db, cacheDir: config.embeddings.headsCacheDir, log }).catch(
      (err: unknown) => {
        analyzerPromise = undefined;
        throw err;
      },
    ));
  analyzer().then(
    (a) => log.info('analyzer ready', { embedder: embedder.name, corpusHash: a.heads.corpusHash }),
    (err) => log.error('analyzer failed to load', { err }),
  );
  const activities = createActivities({
    db,
    analyzer,
    semanticCache: createSemanticCache(async () => embedder),
    openSecret: (sealed) => deps.box.open(sealed),
    webhookTimeoutMs: config.webhooks.timeoutMs,
    allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
    log,
  });
  const { worker, connection } = await createWorker(config, deps.temporalAddress, deps.taskQueue, activities);
  const running = worker.run();
  running.catch((err: unknown) => log.error('worker stopped', { err }));
  const relay = startRelay({ db, databaseUrl: deps.databaseUrl, starters: deps.starters, log });
  return {
    async stop() {
      await relay.stop();
      worker.shutdown();
      await running.catch(() => undefined);
      await connection.close();
    },
  };
}
