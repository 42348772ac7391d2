/**
 * How a stretch of a message reads for the composition rules: its length in words, how it leans,
 * and which words a negator covers. (The rules that use them: ../composition.ts.)
 */
import vader from 'vader-sentiment';
import { lexiconReading } from '../lexicon.js';
import { negationDistances, wordTokens } from '../word-features.js';
import { MORE_COMPLAINT, MORE_PRAISE } from './vocabulary.js';

/**
 * How a stretch of text leans, in about [-3, 3]: our lexicon (the domain's phrases), VADER (the
 * language's words, with its negation rules) and, when given, the trained word reader (which knows
 * the corpus' words and their misspellings: P(positive) − P(negative) of the stretch alone).
 */
export type ReaderLean = (text: string) => number;

/**
 * Praise said through a negator, which VADER reads as its negation ("I couldn't be happier" −0.42,
 * "can't recommend it enough" −0.28, "never been better" −0.34): read as the praise it is. ("I
 * can't recommend them any more" is no praise.)
 */
const NEGATED_PRAISE_IDIOM =
  /\b(?:(?:could(?:n['’]?t| not)|can['’]?t|cannot) (?:be|have been) (?:any )?(?:happier|more (?:pleased|satisfied|impressed|delighted|thrilled))|(?:can['’]?t|cannot|could(?:n['’]?t| not)) (?:recommend|praise|thank) (?:\p{L}+ ){0,3}(?:enough|highly enough|(?<!\bany )more)|never (?:been|felt|looked|worked|run|ran) better)\b/giu;

export function lean(text: string, reader?: ReaderLean): number {
  text = text.replace(NEGATED_PRAISE_IDIOM, 'delighted');
  const own = lexiconReading(text).score;
  const v = vader.SentimentIntensityAnalyzer.polarity_scores(text).compound;
  // (Hyphenated words whole: "top-notch", "hassle-free".)
  const extra = (text.toLowerCase().match(/\p{L}+(?:-\p{L}+)*/gu) ?? []).reduce(
    (sum, w) => sum + (MORE_PRAISE.has(w) ? 0.5 : MORE_COMPLAINT.has(w) ? -0.5 : 0),
    0,
  );
  // The reader at half weight: on a clause alone it is less sure than on the message it learned from.
  return own + v + extra + (reader ? 0.5 * reader(text) : 0);
}

/** A stretch leans one way when the lexicons together say so by this much. */
export const CLEAR = 0.25;

export const signOf = (x: number): -1 | 0 | 1 => (x >= CLEAR ? 1 : x <= -CLEAR ? -1 : 0);
/**
 * The rules are for short messages. A short two-part contrast is judged by its later part; a
 * longer message weighs more than two clauses (the corpus' labelling rule), so the rules leave it
 * to the stack.
 */
export const SHORT_WORDS = 30;

export const SHORT_SENTENCES = 2;
/**
 * A stretch's length in words, every 20 characters counting as at least one. The rules are for
 * short messages, and some of their patterns (the contrast markers' lookbehinds, "only N times")
 * take time that grows with the square of the length: a single 10,000-letter "word" must not pass
 * for a short message (it took seconds of the worker's main thread; composition.test.ts bounds it).
 */
const CHARS_A_WORD = 20;

export const words = (s: string) => Math.max((s.match(/\p{L}+/gu) ?? []).length, Math.ceil(s.length / CHARS_A_WORD));
const CONTRAST_WORD = new Set(['but', 'yet', 'though', 'although', 'however', 'just', 'only']);
const NEW_SUBJECT = new Set([
  'the',
  'i',
  'we',
  'they',
  'it',
  'he',
  'she',
  'you',
  'my',
  'our',
  'their',
  'his',
  'her',
  'everyone',
  'everything',
  'this',
  'that',
]);

/**
 * wordTokens' words, each with how far after the negator that opened its scope it stands (1 for
 * the word right after "not"), or Infinity outside a negation. A contrast word ends a scope
 * ("nothing fancy but reliable"), which wordTokens, ending scopes at punctuation only, does not.
 */
export function scopedWords(text: string): { word: string; distance: number }[] {
  const tokens = wordTokens(text);
  const distances = negationDistances(tokens);
  let cut = false;
  const bare = (tok: string | undefined) => tok?.replace(/^NOT_/, '');
  return tokens.map((tok, i) => {
    const marked = tok.startsWith('NOT_');
    const word = marked ? tok.slice(4) : tok;
    // An unmarked word is a negator or outside any scope: a new scope starts uncut.
    if (!marked) cut = false;
    if (CONTRAST_WORD.has(word)) cut = true;
    // "and" before a new subject starts a new clause ("nobody minded and the staff were lovely"),
    // "and" between two complements does not ("wasn't clean and tidy").
    if (word === 'and' && NEW_SUBJECT.has(bare(tokens[i + 1]) ?? '')) cut = true;
    return { word, distance: marked && !cut ? distances[i] : Infinity };
  });
}

/**
 * A negator one or two words before what follows ("not a single outage", "never once crashed"):
 * "n't" with its apostrophe, or a known contraction typed without it ("dont", "wasnt"), never any
 * word that ends in "nt" ("restaurant", "urgent").
 */
export const NEGATED_BEFORE =
  /\b(?:no|not|never|zero|without|\w+n['’]t|(?:do|does|did|is|are|was|were|has|have|had|could|would|should|wo|ca|must|need|ai)nt)\s+(?:\S+\s+)?$/iu;

/** Words that say a thing is absent ("free of outages", "the lack of outages"): a denial as "no" is. */
export const ABSENCE = String.raw`free (?:of|from)|(?:the )?lack of|(?:the )?absence of|devoid of`;

/** A thing said to be smaller: "fewer crashes", "less lag". */
const SMALLER = 'less|fewer';

/** The same as NEGATED_BEFORE, a failure said to be smaller, or absent. */
export const DENIED_BEFORE = new RegExp(NEGATED_BEFORE.source.replace(')nt)', `)nt|${SMALLER}|${ABSENCE})`), 'iu');

/** Only smaller or absent, one or two words before: "fewer crashes", "free of outages". */
export const SMALLER_OR_ABSENT_BEFORE = new RegExp(String.raw`\b(?:${SMALLER}|${ABSENCE})\s+(?:\S+\s+)?$`, 'iu');

/** Any negator in a stretch. */
export const NEGATED =
  /\b(?:no|not|never|nothing|none|nobody|without|\w+n['’]t|(?:do|does|did|is|are|was|were|has|have|had|could|would|should|wo|ca|must|need|ai)nt)\b/iu;
