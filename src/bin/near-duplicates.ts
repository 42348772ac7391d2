import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCorpus, parseLabelled } from '../analysis/corpus.js';
import { nearDuplicates } from '../analysis/near-duplicates.js';

/**
 * `npx tsx src/bin/near-duplicates.ts [labelled.jsonl] [--bound=0.4]`: the corpus lines (and the
 * sarcasm set's) within character 5-gram Jaccard `bound` of a message of the evaluation file, by
 * corpus id (or sarcasm file and line) only
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
// The sarcasm set's lines are named by their file and line in it (they have no ids).
const training = [...corpus.items.map((it) => it.text), ...corpus.sarcasm.map((ex) => ex.text)];
const lineIn = new Map<string, number>();
const named = [
  ...corpus.items.map((it) => it.id),
  ...corpus.sarcasm.map((ex) => {
    lineIn.set(ex.writer, (lineIn.get(ex.writer) ?? 0) + 1);
    return `sarcasm/${ex.writer}.jsonl:${lineIn.get(ex.writer)}`;
  }),
];
const pairs = nearDuplicates(
  training,
  evalItems.map((it) => it.text),
  bound,
);
const ids = [...new Set(pairs.map(([i]) => named[i]))];
console.log(
  `near-duplicates between the corpus and sarcasm set (${training.length}) and ${path.basename(file)} (${evalItems.length}) at Jaccard >= ${bound}: ${pairs.length}${ids.length ? ` (ids: ${ids.join(', ')})` : ''}`,
);
process.exit(pairs.length > 0 ? 1 : 0);
