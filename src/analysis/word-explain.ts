import type { SparseModel } from './sparse-linear.js';
import { featureIndex, featureKeys } from './word-features.js';

/**
 * Names for the word reader's hashed features, for people: `npm run eval -- --explain` and the
 * words that drove a churn reading. Hashing keeps no vocabulary, so the names come back from
 * texts: every feature key of these texts, by index (a collision shows the first key met).
 */
export function featureNames(texts: string[]): Map<number, string> {
  const names = new Map<number, string>();
  for (const text of texts)
    for (const key of featureKeys(text)) {
      const i = featureIndex(key);
      if (!names.has(i)) names.set(i, key);
    }
  return names;
}

/**
 * A feature key as a reader would write it: `w:NOT_working` → `not working`; a character n-gram
 * with `_` for a word's edge: `c5: wish` → `~_wish`, `c4:und ` → `~und_`.
 */
export function readable(key: string): string {
  const [kind, ...rest] = key.split(':');
  const text = rest.join(':');
  return kind.startsWith('c') ? `~${text.replace(/ /g, '_')}` : text.replace(/NOT_/g, 'not ');
}

/** The `count` most positively weighted named features of one output. */
export function topNamed(m: SparseModel, output: number, names: Map<number, string>, count: number) {
  return [...names]
    .map(([i, key]) => ({ name: readable(key), weight: m.weights[i * m.outputs + output] }))
    .filter((x) => x.weight > 0)
    .sort((a, b) => b.weight - a.weight)
    .slice(0, count);
}

/**
 * The words and word pairs of one text that pushed one output up the most (weight × value in the
 * text's row), at most `count`: what a reader can check against the message.
 */
export function drivingWords(m: SparseModel, output: number, text: string, count: number): string[] {
  const seen = new Map<string, number>();
  for (const key of featureKeys(text)) {
    if (!key.startsWith('w:') && !key.startsWith('b:')) continue;
    const w = m.weights[featureIndex(key) * m.outputs + output];
    if (w > 0) seen.set(readable(key), w);
  }
  return [...seen]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name]) => name);
}
