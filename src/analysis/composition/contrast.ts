/**
 * Contrasts: "X, but Y", "although X, Y", "at first X, now Y", two clauses side by side, and an
 * expectation denied. The later part carries the verdict. (The rules that use them:
 * ../composition.ts.)
 */
import { wordTokens } from '../word-features.js';
import { FAILURE, MENDED, plainFailure } from './failures.js';
import { CLEAR, lean, NEGATED, type ReaderLean, SHORT_SENTENCES, SHORT_WORDS, signOf, words } from './reading.js';
import { complaint, praise } from './vocabulary.js';

/** "Although X, Y": a fronted concession whose main clause follows the first comma. */
const CONCESSION =
  /^\W*(?:(?:even though|although|though|while|whilst|despite|in spite of)\b(?=[^,;]*\p{L})|after (?:a|an|the|some) (?:rocky|rough|bumpy|shaky|slow|difficult|poor|bad|frustrating|messy|clunky|wobbly|awkward|painful|terrible|disappointing) (?:start|beginning|first (?:week|month|day|few (?:days|weeks)))\b)([^,;]*)[,;]\s*(.+)$/iu;

/**
 * Markers after which the later part carries the verdict. "not only … but" and "nothing but" are
 * not contrasts, and "but" right after "all" ("all but") is a quantity. "Still," and "in the end,"
 * turn only where a sentence or clause opens with them ("it still crashes" is no turn).
 */
export const MARKER =
  /(?<!\bnot only\b[^,.;]*)(?<!\b(?:nothing|all|anything)\s)\b(?:(?:that|which|it|none of (?:that|this|it)) (?:hardly|barely|doesn['’]?t|does not|no longer) matters?|(?:everything|all) else(?= (?:is|was|has been|about))|bu+t|however|(?<!\b(?:not|as)\s)yet(?!\s+(?:to|again|another)\b)|until|whereas|except that|that said|unfortunately|sadly|these days|lately|nowadays|since then|turn(?:s|ed) out|on the other hand)\b|(?<=\b(?:at first|initially|originally|used to|in the beginning|before)\b.*)\b(?:now|then)\b|(?<=\b(?:started|began|starts|begins)\b.*)\b(?:ended|ends|finished|finishes)\b|(?<=(?:^|[.!?;,—–-])\s*)\b(?:still|even so|nonetheless|nevertheless|all the same|regardless|in the end|overall)(?=\s*,)|\beven so\b/giu;

/**
 * Time that has turned a story ("two months in", "weeks later", "since then", "these days") or a
 * complaint taken back ("forget that", "I stand corrected"): what follows is how things are now.
 */
export const TIME_TURN =
  /\b(?:(?:\p{L}+ )?(?:days?|weeks?|months?|years?) (?:later|in(?!\s+(?:advance|a row|total|the (?:past|last)))|on(?!\s+(?:end|hold)))|since then|these days|nowadays|forget (?:that|it)|scratch that|i stand corrected|i take (?:it|that) back)\b/giu;

/** The two parts of a short contrast, or undefined when the message has none (or its later part is under two words). */
export function contrastParts(text: string): [string, string] | undefined {
  if (words(text) > SHORT_WORDS || (text.match(/[.!?]+(?:\s|$)/g) ?? []).length > SHORT_SENTENCES) return undefined;
  const c = text.match(CONCESSION);
  if (c && words(c[2]) >= 2) return [c[1], c[2]];
  // "The rooms are modern; the showers are cold though.": a closing "though" turns the last clause.
  const t = text.match(CLOSING_THOUGH);
  // A softened caveat ("a bit pricey though") qualifies the message; it does not turn it.
  if (t && words(t[1]) >= 1 && words(t[2]) >= 2 && !SOFTENED.test(t[2])) return [t[1], t[2]];
  let at = -1;
  let end = -1;
  // The last marker with a later part to judge: "at first, but it's bad now" turns at "but", not
  // at the closing "now".
  for (const m of text.matchAll(MARKER)) {
    if (words(text.slice(m.index! + m[0].length)) >= 2) [at, end] = [m.index!, m.index! + m[0].length];
  }
  if (at < 0) return undefined;
  const after = text.slice(end);
  const before = text.slice(0, at);
  return words(after) >= 2 && words(before) >= 1 ? [before, after] : undefined;
}

/** A last clause closed by "though" (after a comma, semicolon or full stop): the turn of a two-part message. */
const SOFTENED = /\b(?:a (?:bit|little|tad|touch)|bit|slightly|somewhat|mildly|kinda|kind of|sort of|a few|minor)\b/iu;

const CLOSING_THOUGH = /^(.+?)[,;.!]\s*([^,;.!?]+?)\s*,?\s+though\W*$/iu;
/** Markers that say the later part is bad news whatever its words: "Unfortunately it …", "… that hardly matters now that …". */
export const BAD_NEWS =
  /\b(?:unfortunately|sadly|regrettably|(?:hardly|barely|doesn['’]?t|does not|no longer) matters?)\b/iu;

/**
 * An expectation and its denial: "I thought the update would be slow, but it wasn't", "we were told
 * setup would be easy. It isn't.", "it was supposed to be fast, it's not". What was expected is
 * read, and the verdict is its opposite. The denial must end the message: "I thought it would be
 * slow, but it wasn't, it was worse" is not this shape. Short messages only.
 */
const EXPECTATION =
  /\b(?:(?:thought|expected|feared|worried|assumed|figured|imagined|suspected|hoped|afraid|told|heard|promised|read)(?: that)?\b[^.;!?]{0,60}?\b(?:would|will|might|could|was going to|were going to|is going to|to)|(?:was|were|is|are)(?: \p{L}+)? (?:supposed|meant|advertised|sold|marketed) (?:to|as))\s+(?:be\s+)?([^.,;!?…]{2,60}?)\s*(?:[,;.!…—–-]+\s*|\s+)(?:(?:but|and|yet|though|well|alas|nope|sadly|happily|luckily|thankfully)\W*\s*)?(?:(?:it|they|he|she|this|that|he|we|i|you)\s+)?(?:(?:really|actually|definitely|certainly|simply)\s+)?(?:wasn['’]?t|weren['’]?t|isn['’]?t|aren['’]?t|didn['’]?t|doesn['’]?t|don['’]?t|hasn['’]?t|haven['’]?t|won['’]?t|(?:was|were|is|are|did|does|do|has|have|will)\s+not|(?:it|they)['’]s not|not (?:at all|really|so|even close))(?:\s+(?:at all|really|even close|one bit|in the slightest|in the least|anymore|any more))?\W*$/iu;

/** "Thought I'd hate it because …, but I was wrong": a dislike expected, and the expectation owned as wrong. */
const WRONG_ABOUT_DISLIKE =
  /\b(?:thought|expected|was sure|were sure|assumed|feared|figured)\b[^.;!?]{0,40}?\b(?:i|we)(?:['’]d| would| was going to| were going to) (?:hate|dislike|regret|be disappointed|be let down)\b.*\b(?:i|we) (?:was|were) (?:so |completely |totally |very )?(?:wrong|mistaken)\b/iu;

export function expectationDenied(text: string, reader?: ReaderLean): -1 | 1 | 0 {
  if (/\?/.test(text) || words(text) > SHORT_WORDS) return 0;
  if (WRONG_ABOUT_DISLIKE.test(text)) return 1;
  const m = text.match(EXPECTATION);
  if (!m) return 0;
  const said = m[1];
  // What was expected: a failure or a complaint (denied: praise), or praise (denied: a complaint).
  const lean_ = signOf(lean(said, reader));
  const bad = FAILURE.test(said) || wordTokens(said).some((t) => !t.startsWith('NOT_') && complaint(t));
  const good = wordTokens(said).some((t) => !t.startsWith('NOT_') && praise(t));
  if (wordTokens(said).some((t) => t.startsWith('NOT_'))) return 0; // "thought it wouldn't work": a double turn, left to the readers
  if (bad && !good) return 1;
  if (good && !bad) return -1;
  // What was promised or hoped for and not delivered ("supposed to be cheaper, but it isn't", "was
  // meant to arrive last Friday and it hasn't") is a complaint, whatever a reader hears in the
  // plain words of what was promised ("arrive last Friday": dev30).
  const promised = /\b(?:supposed|meant|advertised|sold|marketed|promised|hoped)\b/iu.test(m[0]);
  if (promised && !bad) return -1;
  return lean_ !== 0 ? (-lean_ as -1 | 1) : 0;
}

/**
 * Two short clauses side by side with no marker, leaning opposite ways: "Beautiful packaging,
 * broken product inside.", "Slow start, brilliant finale." The later one carries the verdict, as
 * after "but". Both must lean clearly (a failure told calmly counts for the later one).
 */
const JUXTAPOSED_WORDS = 20;

const NOT_ENGLISH =
  /\b(?:der|die|das|und|nicht|ist|mit|für|sehr|el|los|las|muy|pero|est|une|les|des|très|il|che|è|non|molto|não|muito|com|para)\b/iu;

export function juxtaposed(text: string, reader?: ReaderLean): -1 | 1 | 0 {
  if (/\?/.test(text) || words(text) > JUXTAPOSED_WORDS) return 0;
  // One sentence of two clauses, the second not joined by a conjunction (those are contrasts or lists).
  const sentence = text.replace(/[.!…\s]+$/u, '');
  if (/[.!…]\s/u.test(sentence)) return 0;
  const parts = sentence.split(/\s*[,;]\s*/u);
  if (parts.length !== 2 || words(parts[0]) < 2 || words(parts[1]) < 3) return 0;
  // Joined by a conjunction (a contrast or a list), opened by a subordinate ("Given the outage, …"),
  // or a side that denies or mends ("no drama at all", "problem solved"): not two plain verdicts.
  if (/^(?:and|or|but|so|yet|then|plus|though|although|while|whereas)\b/iu.test(parts[1])) return 0;
  if (
    /^\W*(?:given|since|as|because|after|before|when|whenever|if|while|though|although|despite|with)\b/iu.test(parts[0])
  )
    return 0;
  if (parts.some((p) => NEGATED.test(p) || MENDED.test(p) || /\bat (?:best|most|least)\b/iu.test(p))) return 0;
  // A request is no verdict: "app keeps crashing, pls help its urgent".
  if (/\b(?:please|pls|plz|help|asap|urgent\w*|can you|could you)\b/iu.test(parts[1])) return 0;
  // The lexicons are English: another language's words ("die", "no") lean by accident.
  if (NOT_ENGLISH.test(text)) return 0;
  // Each side clearly one way (twice a clear stretch), or the later one a failure told.
  const strongly = (x: number) => (x >= 2 * CLEAR ? 1 : x <= -2 * CLEAR ? -1 : 0);
  const before = strongly(lean(parts[0], reader));
  const after = strongly(lean(parts[1], reader)) || plainFailure(parts[1]);
  return before !== 0 && after !== 0 && before !== after ? after : 0;
}
