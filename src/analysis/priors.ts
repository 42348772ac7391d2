/**
 * Lexicon priors: what two published sentiment lexicons say of a message, as features of the
 * polarity stack (heads.ts), beside the two trained readers. They were written by people for
 * sentiment in general (VADER: Hutto & Gilbert 2014, 7,500 rated terms with rules for negation,
 * "but", intensifiers, caps and "!"; AFINN-165 through the `sentiment` package, with its negators),
 * so they know words our corpus never used, and they fail differently from readers trained on it.
 * Their weights are learned on out-of-fold predictions like every other stack weight, so a prior
 * that does not help gets a small weight (docs/analysis.md says what cross-validation measured).
 */
import Sentiment from 'sentiment';
import vader from 'vader-sentiment';
import { VADER_LEXICON } from './lexicon-words.js';
import { negationDistances, wordTokens } from './word-features.js';

const afinn = new Sentiment();

/**
 * Markers after which the last clause carries the verdict ("loved it, but the last update broke
 * everything"; "at first it was fine, now it crashes daily"). VADER weighs the clause after "but"
 * itself; this feature generalises it to the other markers and lets the stack weigh it.
 */
const CONTRAST = /\b(?:but|however|though|although|yet|until|except|unfortunately|sadly|now|anymore)\b/giu;

/**
 * A short opening exclamation ("Brilliant,", "Oh good,", "Thanks a lot!") before what happened:
 * sarcasm's usual shape ("Brilliant, the board is down again"), where the verdict is in what
 * follows. Up to three words, then a comma or "!".
 */
const OPENING = /^\W*(?:\p{L}+['’]?\p{L}*\s+){0,2}\p{L}+['’]?\p{L}*\s*[,!]+\s*/u;

/**
 * The text after the last contrast marker, or after a short opening exclamation, when it holds at
 * least two words (three after an opening); else the whole text.
 */
export function lastClause(text: string): string {
  let end = -1;
  for (const m of text.matchAll(CONTRAST)) end = m.index! + m[0].length;
  if (end >= 0) {
    const tail = text.slice(end);
    return (tail.match(/\p{L}+/gu) ?? []).length >= 2 ? tail : text;
  }
  const opening = text.match(OPENING);
  if (!opening) return text;
  const tail = text.slice(opening[0].length);
  return (tail.match(/\p{L}+/gu) ?? []).length >= 3 ? tail : text;
}

/** How near a negator must be for a rated word to count as denied ("not exactly user friendly"). */
const UNDERSTATEMENT_REACH = 3;

/**
 * Understatement both ways, capped at 2: rated words denied by a negator at most three words
 * before them, in the word reader's scope (word-features.ts): [praise denied ("never great", "not
 * exactly user friendly", "hardly intuitive"), complaints denied ("not awkward at all", "no longer
 * laggy")]. VADER's 7,500 rated words, so more than our own lexicon knows.
 */
export function understatement(text: string): [number, number] {
  const tokens = wordTokens(text);
  const distances = negationDistances(tokens);
  let praise = 0;
  let complaint = 0;
  tokens.forEach((tok, i) => {
    if (distances[i] > UNDERSTATEMENT_REACH) return;
    const valence = VADER_LEXICON[tok.slice(4)] ?? 0;
    if (valence > 0) praise++;
    if (valence < 0) complaint++;
  });
  return [Math.min(2, praise), Math.min(2, complaint)];
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
