/**
 * The word lists of the two published lexicons the analysis reads (priors.ts): VADER's rated terms
 * (Hutto & Gilbert 2014, `vader-sentiment`) and AFINN-165's (`sentiment`). Read once; the packages
 * ship them, but not as a documented export, so the versions are pinned in package.json.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
/** VADER's valence per lower-case term, about −4 to 4. */
export const VADER_LEXICON = require('vader-sentiment/src/vader_lexicon.js').lexicon as Record<string, number>;
const VADER_WORDS = new Set(Object.keys(VADER_LEXICON));
const AFINN_WORDS = new Set(Object.keys(require('sentiment/languages/en/labels.json') as object));

/** Whether either lexicon rates this lower-case word (normalize.ts restores elongated words with it). */
export const knownWord = (w: string) => VADER_WORDS.has(w) || AFINN_WORDS.has(w);
