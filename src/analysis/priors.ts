/**
 * Lexicon priors: what two published sentiment lexicons say of a message, as features of the
 * polarity stack (heads.ts), beside the two trained readers. They were written by people for
 * sentiment in general (VADER: Hutto & Gilbert 2014, 7,500 rated terms with rules for negation,
 * "but", intensifiers, caps and "!"; AFINN-165 through the `sentiment` package, with its negators),
 * so they know words our corpus never used, and they fail differently from readers trained on it.
 * Their weights are learned on out-of-fold predictions like every other stack weight, so a prior
 * that does not help gets a small weight (docs/analysis.md says what cross-validation measured).
 */
import { createRequire } from 'node:module';
import Sentiment from 'sentiment';
import vader from 'vader-sentiment';

const require = createRequire(import.meta.url);
// The lexicons' word lists, read once: the packages ship them, but not as a documented export.
const VADER_WORDS = new Set(Object.keys(require('vader-sentiment/src/vader_lexicon.js').lexicon as object));
const AFINN_WORDS = new Set(Object.keys(require('sentiment/languages/en/labels.json') as object));
const afinn = new Sentiment();

/** Whether either lexicon rates this lower-case word (normalize.ts restores elongated words with it). */
export const knownWord = (w: string) => VADER_WORDS.has(w) || AFINN_WORDS.has(w);

/**
 * Markers after which the last clause carries the verdict ("loved it, but the last update broke
 * everything"; "at first it was fine, now it crashes daily"). VADER weighs the clause after "but"
 * itself; this feature generalises it to the other markers and lets the stack weigh it.
 */
const CONTRAST = /\b(?:but|however|though|although|yet|until|except|unfortunately|sadly|now|anymore)\b/giu;

/** The text after the last contrast marker, when it holds at least two words; else the whole text. */
export function lastClause(text: string): string {
  let end = -1;
  for (const m of text.matchAll(CONTRAST)) end = m.index! + m[0].length;
  if (end < 0) return text;
  const tail = text.slice(end);
  return (tail.match(/\p{L}+/gu) ?? []).length >= 2 ? tail : text;
}

export const PRIOR_NAMES = [
  'vader_compound',
  'vader_positive',
  'vader_negative',
  'afinn_comparative',
  'vader_last_clause',
] as const;

/** The priors of one (normalised) message, each in about [-1, 1]. */
export function lexiconPriors(text: string): number[] {
  const v = vader.SentimentIntensityAnalyzer.polarity_scores(text);
  const last = lastClause(text);
  const vLast = last === text ? v.compound : vader.SentimentIntensityAnalyzer.polarity_scores(last).compound;
  // AFINN's comparative score is its sum over the token count; scores run -5..5 per word.
  const a = Math.max(-1, Math.min(1, afinn.analyze(text).comparative / 2));
  return [v.compound, v.pos, v.neg, a, vLast];
}
