import { normalizeText } from './normalize.js';

/**
 * The second reader's features: what a message says in words, word order and spelling, as a
 * hashed sparse vector (the fastText / Vowpal Wabbit idea: no vocabulary to store or grow; a
 * collision costs a little accuracy, never a failure). A sentence embedding blurs exactly these
 * facts: "not bad at all", a negated problem ("no more crashes"), a before/after, sarcasm in polite
 * words.
 *
 * - word unigrams and bigrams, where a word inside a negation's scope (after a negator, up to the
 *   next punctuation) is marked `NOT_` (Das & Chen; Pang, Lee & Vaithyanathan 2002);
 * - character 2- to 5-grams inside each word padded with spaces, which carry inflections, typos and
 *   the corpus' other languages without a tokenizer of their own.
 *
 * Counts are sublinear (1 + log tf), then the row is scaled to unit length, as TF-IDF readers do.
 */

/**
 * 2^20 hashed features (heads v27). At 2^18 they were not rare: the corpus' and the sarcasm set's
 * 174,344 distinct keys filled 127,016 buckets and 48.9% of the keys shared one, so about half of a
 * new writer's unseen words landed on a weight learnt for something else ("from remedia" on "lots
 * of", −3.3 toward negative). The wider table took the never-read held-out sets from 358 to 344
 * failures and the read ones from 304 to 298 (docs/analysis.md, "The word reader"; one training
 * seed each, and a retraining with another seed alone moves them by 13 and 24: "Held-out sentences,
 * and how a change is judged"); each unpacked model costs 4 bytes × 2^20 × its outputs (about 90 MB
 * for the three of a reader, 23 before).
 */
export const WORD_FEATURE_BITS = 20;
const MASK = (1 << WORD_FEATURE_BITS) - 1;

/** A sparse row: feature indices (ascending, unique) and their values. */
export interface SparseRow {
  index: Uint32Array;
  value: Float32Array;
}

/**
 * Negators of the corpus' languages. A word after one of these, up to the next punctuation, is
 * read as negated. Contractions are split by the tokenizer (`don't` → `don` `t`), so their stems
 * are here.
 */
const NEGATORS = new Set([
  'not',
  'no',
  'never',
  'nothing',
  'nobody',
  'none',
  'nor',
  'neither',
  'without',
  // "zero downtime", "zero intention of leaving", "nowhere near as confusing".
  'zero',
  'nowhere',
  // Understatement negates too: "hardly intuitive", "barely usable".
  'hardly',
  'barely',
  'scarcely',
  'cannot',
  'cant',
  'dont',
  'doesnt',
  'didnt',
  'isnt',
  'wasnt',
  'arent',
  'werent',
  'wont',
  'wouldnt',
  'shouldnt',
  'couldnt',
  'hasnt',
  'havent',
  'hadnt',
  'aint',
  // es, pt, fr, de, it, nl
  'nunca',
  'nada',
  'não',
  'nao',
  'nem',
  'ne',
  'pas',
  'jamais',
  'rien',
  'nicht',
  'kein',
  'keine',
  'nie',
  'niemals',
  'non',
  'mai',
  'niente',
  'niet',
  'geen',
  'nooit',
]);

/** Tokens: words (letters, digits, apostrophes inside) and the punctuation that ends a negation. */
const TOKEN = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*|[.,;:!?()]/gu;
const SCOPE_END = /^[.,;:!?()]$/;

/** Words of a text (normalised: normalize.ts), lower-cased and NFKC-folded, with negation scope marked. */
export function wordTokens(text: string): string[] {
  const out: string[] = [];
  let negated = false;
  for (const m of normalizeText(text).normalize('NFKC').toLowerCase().matchAll(TOKEN)) {
    const raw = m[0];
    if (SCOPE_END.test(raw)) {
      negated = false;
      continue;
    }
    // "don't" → "dont", "isn’t" → "isnt": one negator, whichever apostrophe was typed.
    const word = raw.replace(/['’]/g, '');
    // "far from reliable" denies like "not": "from" right after "far" opens a scope ("by far the
    // best" does not, "far" alone is no negator).
    if (NEGATORS.has(word) || (word === 'from' && out[out.length - 1] === 'far')) {
      out.push(word);
      negated = true;
      continue;
    }
    out.push(negated ? `NOT_${word}` : word);
  }
  return out;
}

/**
 * For each of wordTokens' tokens: how many words after the negator that opened its scope it stands
 * (1 for the word right after "not"), or Infinity outside a negation. wordTokens keeps a negator
 * unmarked and marks the words after it, so an unmarked word followed by a marked one is that
 * negator. Readers that need a denial to be near its negator ("no need for a refund", not "I can't
 * believe I have to ask for a refund") use it.
 */
export function negationDistances(tokens: string[]): number[] {
  let negator = -Infinity;
  return tokens.map((tok, i) => {
    const marked = tok.startsWith('NOT_');
    if (!marked && tokens[i + 1]?.startsWith('NOT_')) negator = i;
    return marked ? i - negator : Infinity;
  });
}

/** FNV-1a over the string's UTF-16 units: fast, stable across runs and machines. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The named features of a text, before hashing: `w:` words, `b:` word pairs, `cN:` character
 * n-grams. Kept apart from the hashing so that `npm run eval -- --explain` and the churn factors
 * can name what a weight stands for.
 */
export function featureKeys(text: string): string[] {
  const keys: string[] = [];
  const words = wordTokens(text);
  words.forEach((w, i) => {
    keys.push(`w:${w}`);
    if (i > 0) keys.push(`b:${words[i - 1]} ${w}`);
    const padded = ` ${w.startsWith('NOT_') ? w.slice(4) : w} `;
    for (let n = 2; n <= 5; n++)
      for (let k = 0; k + n <= padded.length; k++) keys.push(`c${n}:${padded.slice(k, k + n)}`);
  });
  return keys;
}

/** The hashed index of a named feature. */
export const featureIndex = (key: string): number => hash(key) & MASK;

/** The hashed sparse row of a text. */
export function wordFeatures(text: string): SparseRow {
  const counts = new Map<number, number>();
  for (const key of featureKeys(text)) {
    const i = featureIndex(key);
    counts.set(i, (counts.get(i) ?? 0) + 1);
  }
  const index = Uint32Array.from([...counts.keys()].sort((a, b) => a - b));
  const value = new Float32Array(index.length);
  let norm = 0;
  index.forEach((i, k) => {
    value[k] = 1 + Math.log(counts.get(i)!);
    norm += value[k] * value[k];
  });
  norm = Math.sqrt(norm) || 1;
  for (let k = 0; k < value.length; k++) value[k] /= norm;
  return { index, value };
}
