/**
 * What every reader sees instead of the raw message (the embedder, the cues, the lexicons and the
 * word reader alike, so training and serving read the same thing): real posts carry @handles,
 * links and e-mail addresses whose letters say nothing about the customer's mood but move a
 * sentence vector and fill the word reader with one-off features; and elongated words ("sooo
 * slow", "loooove it") are spelt a new way each time. Placeholders keep the fact that there was a
 * handle or a link (a tagged complaint reads differently from a bare one) without its letters.
 *
 * Idempotent: normalising twice gives the same text, so any path may normalise again.
 */
import { knownWord } from './lexicon-words.js';

const URL = /\b(?:https?:\/\/|www\.)[^\s<>"']+/giu;
const EMAIL = /\b[\p{L}\p{N}._%+-]+@[\p{L}\p{N}.-]+\.\p{L}{2,}\b/gu;
/** A handle at a word's start: "@acme_help", not the "@" inside an address (taken first). */
const HANDLE = /(^|[^\p{L}\p{N}_])@[\p{L}\p{N}_]{1,30}/gu;
/** A letter typed three times or more in a row (ELONGATED_ONE tests, without a global regex's state). */
const ELONGATED = /(\p{L})\1{2,}/gu;
const ELONGATED_ONE = /(\p{L})\1{2,}/u;

export const URL_TOKEN = 'httpurl';
export const EMAIL_TOKEN = 'emailaddress';
export const HANDLE_TOKEN = '@user';

/**
 * An elongated word back to its spelling: the letter kept twice ("sooo" → "soo", "goood" →
 * "good"), or once when only that form is a word the sentiment lexicons know ("loooove" → "love",
 * "baaad" → "bad"). No dictionary of all English is at hand offline, so a word outside them keeps
 * two letters: still one spelling for every length of elongation.
 */
function unelongate(word: string): string {
  const twice = word.replace(ELONGATED, '$1$1');
  const once = word.replace(ELONGATED, '$1');
  const lower = (w: string) => w.toLowerCase();
  return knownWord(lower(twice)) ? twice : knownWord(lower(once)) ? once : twice;
}

/**
 * Shouting, lower-cased: a word of four or more capitals ("WORST", "LOVE IT") reads to the
 * embedder as another token from its lower-case self, and moved v3's readings against the words'
 * own sense (a DIR probe). Three-letter acronyms (SSO, CSV, API) keep their capitals.
 */
const SHOUTED = /\b\p{Lu}{4,}\b/gu;
/** "!!!" and "?!?!" once: the stack keeps the fact of an exclamation, not how long the key was held. */
const REPEATED_MARKS = /([!?])[!?]+/gu;

export function normalizeText(text: string): string {
  return text
    .replace(URL, URL_TOKEN)
    .replace(EMAIL, EMAIL_TOKEN)
    .replace(HANDLE, (_, lead: string) => `${lead}${HANDLE_TOKEN}`)
    .replace(/\p{L}+/gu, (w) => (ELONGATED_ONE.test(w) ? unelongate(w) : w))
    .replace(SHOUTED, (w) => w.toLowerCase())
    .replace(REPEATED_MARKS, '$1');
}
