import { defaultHeadsCacheDir, loadConfig } from '../config.js';
import { startEmbeddedPostgres } from '../dev-hosting/embedded-postgres.js';
import { createDb } from '../db/knex.js';
import { migrateLatest } from '../db/migrate.js';
import { createLogger } from '../observability/logger.js';
import { loadCorpus } from '../analysis/corpus.js';
import { createEmbedder } from '../analysis/embedder.js';
import { headsCacheKey, loadOrTrainHeads } from '../analysis/heads-store.js';

/**
 * `npm run train`: trains the heads for the configured embedder (EMBEDDINGS_PROVIDER) on the
 * corpus again and stores them in the database (DATABASE_URL, or the embedded one in the data
 * folder) and the file cache, replacing what was there. Workers train by themselves when the heads
 * are missing; this is for operators who want it done before a deploy, or done again on purpose.
 */
const config = loadConfig();
const log = createLogger(config.logLevel, {}, config.logFormat);
const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres({ dataDir: config.dataDir });
const db = createDb(config.databaseUrl ?? embedded!.url, 3);
try {
  await migrateLatest(db);
  const embedder = createEmbedder(config.embeddings);
  const corpus = loadCorpus();
  const { heads } = await loadOrTrainHeads({
    embedder,
    db,
    cacheDir: defaultHeadsCacheDir(),
    corpus,
    log,
    force: true,
  });
  console.log(
    JSON.stringify({
      embedder: embedder.name,
      corpusHash: corpus.hash,
      texts: corpus.items.length,
      key: headsCacheKey(embedder.name, corpus.hash),
      crossValidation: heads.crossValidation,
    }),
  );
} finally {
  await db.destroy();
  await embedded?.stop();
}
process.exit(0);
