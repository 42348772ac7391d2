import { parseArgs } from 'node:util';
import { defaultHeadsCacheDir, loadConfig } from '../config.js';
import { startEmbeddedPostgres } from '../dev-hosting/embedded-postgres.js';
import { createDb } from '../db/knex.js';
import { migrateLatest } from '../db/migrate.js';
import { createLogger } from '../observability/logger.js';
import { loadCorpus } from '../analysis/corpus.js';
import { createEmbedder, createLocalEmbedder } from '../analysis/embedder.js';
import {
  headsCacheKey,
  loadOrTrainHeads,
  readEntryFile,
  shippedHeadsFile,
  writeEntryFile,
} from '../analysis/heads-store.js';

/**
 * `npm run train`: trains the heads for the configured embedder (EMBEDDINGS_PROVIDER) on the
 * corpus again and stores them in the database (DATABASE_URL, or the embedded one in the data
 * folder) and the file cache, replacing what was there. Workers train by themselves when the heads
 * are missing; this is for operators who want it done before a deploy, or done again on purpose.
 *
 * `npm run train -- --ship`: trains the local model's heads and writes them to data/heads/, the
 * file a fresh installation loads instead of training (commit it with the corpus change).
 * `npm run train -- --check-shipped`: fails when that file does not fit the corpus and the
 * training version (CI runs it; seconds, no training).
 */
const { values } = parseArgs({ options: { ship: { type: 'boolean' }, 'check-shipped': { type: 'boolean' } } });
const config = loadConfig();
const log = createLogger(config.logLevel, {}, config.logFormat);

if (values['check-shipped'] || values.ship) {
  const embedder = createLocalEmbedder();
  const corpus = loadCorpus();
  const file = shippedHeadsFile(embedder.name);
  if (values.ship) {
    const { heads } = await loadOrTrainHeads({ embedder, corpus, log, force: true, shippedFile: null });
    writeEntryFile(file, heads);
    console.log(`shipped heads written: ${file} (corpus ${corpus.hash}, ${corpus.items.length} texts)`);
  }
  const r = readEntryFile(file, embedder.name, corpus.hash);
  if (typeof r !== 'object') {
    console.error(
      `${file}: ${r ?? 'missing'}. The corpus or the training changed: run npm run train -- --ship and commit the file.`,
    );
    process.exit(1);
  }
  console.log(`shipped heads fit the corpus (${corpus.hash}) and version ${r.version}: ${file}`);
  process.exit(0);
}

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
