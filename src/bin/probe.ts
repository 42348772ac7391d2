import { createAnalyzer } from '../analysis/analyze.js';
import { createLocalEmbedder } from '../analysis/embedder.js';
import {
  CAPABILITY_BAR,
  HOLDOUT_HALVES,
  HOLDOUT_POOLS,
  poolHalves,
  runHoldout,
  runHoldoutPool,
  UNREAD_HALVES,
  type HoldoutHalf,
  type HoldoutPool,
} from '../analysis/probe/holdout.js';
import { formatProbe, runProbe } from '../analysis/probe/runner.js';
import { defaultHeadsCacheDir } from '../config.js';

/**
 * `npm run probe -- [--seed=45] [--per-capability=40] [--examples=off|all] [--holdout=test|dev|test2|…|test18|dev13|…|dev30|dev-posts|test-posts|read|never-read] [--composition=off] [--learned-sarcasm=off]`: the behavioural probe
 * (src/analysis/probe) through the local model's heads of the heads cache (HEADS_CACHE_DIR, or the
 * machine's; trained there first when missing), as the service reads messages. Prints each
 * capability's failure rate and a few failing cases (all of them with --examples=all). With --holdout, the held-out sentences of
 * data/probe-holdout instead of the generated templates (src/analysis/probe/holdout.ts);
 * --holdout=never-read pools every never-read half (the figure the model card quotes) and
 * --holdout=read every read one, by capability, and lists each single half's capability over 0.20
 * (the hidden probe's bar), rates only. --composition=off and --learned-sarcasm=off read without the
 * composition rules or the learned detector, to see what each step gives or costs.
 */
const args = process.argv.slice(2);
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const unknown = args.filter(
  (a) => !/^--(seed|per-capability|examples|holdout)=/.test(a) && !/^--(composition|learned-sarcasm)=off$/.test(a),
);
if (unknown.length > 0) {
  console.error(`unknown argument ${unknown.join(' ')} (see src/bin/probe.ts)`);
  process.exit(2);
}
const holdout = flag('holdout');
const pool = HOLDOUT_POOLS.includes(holdout as HoldoutPool) ? (holdout as HoldoutPool) : undefined;
if (holdout !== undefined && !pool && !HOLDOUT_HALVES.includes(holdout as HoldoutHalf)) {
  console.error(`--holdout must be one of ${[...HOLDOUT_HALVES, ...HOLDOUT_POOLS].join(', ')} (got ${holdout})`);
  process.exit(2);
}
const analyzer = await createAnalyzer(createLocalEmbedder(), { cacheDir: defaultHeadsCacheDir() });
// Ablations of the reading steps after the stack, on the same heads (analysis.md, "What it gives").
if (args.includes('--composition=off')) analyzer.heads.options.composition = false;
if (args.includes('--learned-sarcasm=off')) analyzer.heads.options.learnedSarcasm = false;
if (pool) {
  const { pooled, over } = await runHoldoutPool((texts) => analyzer.analyzeBatch(texts), pool);
  const halves = poolHalves(pool);
  console.log(`held-out sentences, ${pool}: ${halves.length} sets pooled (${halves.join(', ')})`);
  console.log(`heads: ${analyzer.heads.embedder}, corpus ${analyzer.heads.corpusHash.slice(0, 12)}`);
  console.log(formatProbe(pooled));
  console.log(
    over.length === 0
      ? `no single set has a capability over ${CAPABILITY_BAR.toFixed(2)}`
      : `single sets with a capability over ${CAPABILITY_BAR.toFixed(2)}: ${over.map((o) => `${o.half} ${o.name} ${o.failures}/${o.cases}`).join('; ')}`,
  );
  process.exit(0);
}
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
