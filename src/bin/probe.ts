import { createAnalyzer } from '../analysis/analyze.js';
import { createLocalEmbedder } from '../analysis/embedder.js';
import { HOLDOUT_HALVES, runHoldout, UNREAD_HALVES, type HoldoutHalf } from '../analysis/probe/holdout.js';
import { formatProbe, runProbe } from '../analysis/probe/runner.js';
import { defaultHeadsCacheDir } from '../config.js';

/**
 * `npm run probe -- [--seed=45] [--per-capability=40] [--examples=off|all] [--holdout=test|dev|test2|…|test18|dev13|…|dev30|dev-posts|test-posts]`: the behavioural probe
 * (src/analysis/probe) through the local model's heads of the heads cache (HEADS_CACHE_DIR, or the
 * machine's; trained there first when missing), as the service reads messages. Prints each
 * capability's failure rate and a few failing cases (all of them with --examples=all). With --holdout, the held-out sentences of
 * data/probe-holdout instead of the generated templates (src/analysis/probe/holdout.ts).
 */
const args = process.argv.slice(2);
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const unknown = args.filter((a) => !/^--(seed|per-capability|examples|holdout)=/.test(a));
if (unknown.length > 0) {
  console.error(`unknown argument ${unknown.join(' ')} (see src/bin/probe.ts)`);
  process.exit(2);
}
const holdout = flag('holdout');
if (holdout !== undefined && !HOLDOUT_HALVES.includes(holdout as HoldoutHalf)) {
  console.error(`--holdout must be one of ${HOLDOUT_HALVES.join(', ')} (got ${holdout})`);
  process.exit(2);
}
const analyzer = await createAnalyzer(createLocalEmbedder(), { cacheDir: defaultHeadsCacheDir() });
const report = holdout
  ? await runHoldout(
      (texts) => analyzer.analyzeBatch(texts),
      holdout as HoldoutHalf,
      flag('examples') === 'all' ? Infinity : 3,
    )
  : await runProbe((texts) => analyzer.analyzeBatch(texts), {
      seed: flag('seed') ? Number(flag('seed')) : undefined,
      perCapability: flag('per-capability') ? Number(flag('per-capability')) : undefined,
    });
if (holdout) console.log(`held-out sentences, ${holdout} (data/probe-holdout/${holdout}.jsonl)`);
console.log(`heads: ${analyzer.heads.embedder}, corpus ${analyzer.heads.corpusHash.slice(0, 12)}`);
// The test half's failing sentences are never shown: nobody tunes on them (data/probe-holdout/README.md).
console.log(
  formatProbe(report, { examples: flag('examples') !== 'off' && !UNREAD_HALVES.includes(holdout as HoldoutHalf) }),
);
process.exit(0);
