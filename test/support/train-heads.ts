/**
 * Trains the analysis heads into HEADS_CACHE_DIR with the local model (a child process of
 * test/global-setup-heads.ts, so the model's threads leave with it).
 */
import { defaultHeadsCacheDir } from '../../src/config.js';
import { createLocalEmbedder } from '../../src/analysis/embedder.js';
import { loadOrTrainHeads } from '../../src/analysis/heads-store.js';

const { from } = await loadOrTrainHeads({ embedder: createLocalEmbedder(), cacheDir: defaultHeadsCacheDir() });
console.log(`analysis heads for this test run: ${from} (${defaultHeadsCacheDir()})`);
process.exit(0);
