import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCorpus, parseLabelled } from '../analysis/corpus.js';
import { nearDuplicates } from '../analysis/near-duplicates.js';

/**
 * `npx tsx src/bin/near-duplicates.ts [labelled.jsonl] [--bound=0.4]`: the corpus lines
 * within character 5-gram Jaccard `bound` of a message of the evaluation file, by corpus id only
 * (the evaluation texts are never printed). Exits 1 when there is one: a paraphrase on both sides
 * makes the evaluation a test of memory. `.ci/run` runs it whenever the evaluation file is there.
 */
const args = process.argv.slice(2);
const bound = Number(args.find((a) => a.startsWith('--bound='))?.slice(8) ?? 0.4);
const here = path.dirname(fileURLToPath(import.meta.url));
const file = args.find((a) => !a.startsWith('--')) ?? path.resolve(here, '../../../shared/eval/dev.jsonl');
if (!existsSync(file)) {
  console.log(`no evaluation file at ${file}: nothing to compare`);
  process.exit(0);
}
const corpus = loadCorpus();
const evalItems = parseLabelled(readFileSync(file, 'utf8'), file);
const pairs = nearDuplicates(
  corpus.items.map((it) => it.text),
  evalItems.map((it) => it.text),
  bound,
);
const ids = [...new Set(pairs.map(([i]) => corpus.items[i].id))];
console.log(
  `near-duplicates between the corpus (${corpus.items.length}) and ${path.basename(file)} (${evalItems.length}) at Jaccard >= ${bound}: ${pairs.length}${ids.length ? ` (corpus ids: ${ids.join(', ')})` : ''}`,
);
process.exit(pairs.length > 0 ? 1 : 0);
