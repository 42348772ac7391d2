import { createAnalyzer } from '../analysis/analyze.js';
import { createLocalEmbedder } from '../analysis/embedder.js';
import { formatProbe, runProbe } from '../analysis/probe/runner.js';
import { defaultHeadsCacheDir } from '../config.js';

/**
 * `npm run probe -- [--seed=45] [--per-capability=40] [--examples=off]`: the behavioural probe
 * (src/analysis/probe) through the local model's heads of the heads cache (HEADS_CACHE_DIR, or the
 * machine's; trained there first when missing), as the service reads messages. Prints each
 * capability's failure rate and a few failing cases.
 */
const args = process.argv.slice(2);
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const unknown = args.filter((a) => !/^--(seed|per-capability|examples)=/.test(a));
if (unknown.length > 0) {
  console.error(`unknown argument ${unknown.join(' ')} (see src/bin/probe.ts)`);
  process.exit(2);
}
const analyzer = await createAnalyzer(createLocalEmbedder(), { cacheDir: defaultHeadsCacheDir() });
const report = await runProbe((texts) => analyzer.analyzeBatch(texts), {
  seed: flag('seed') ? Number(flag('seed')) : undefined,
  perCapability: flag('per-capability') ? Number(flag('per-capability')) : undefined,
});
console.log(`heads: ${analyzer.heads.embedder}, corpus ${analyzer.heads.corpusHash.slice(0, 12)}`);
console.log(formatProbe(report, { examples: flag('examples') !== 'off' }));
process.exit(0);
