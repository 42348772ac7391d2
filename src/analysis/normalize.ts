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
import { isAnyEnglishWord, isEnglishWord } from './english-words.js';
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
 * An elongated word back to its spelling: the letter kept twice ("goood" → "good", "feeeel" →
 * "feel") or once ("sooo" → "so", "quiiick" → "quick", "loooove" → "love"), whichever is a word
 * the sentiment lexicons know, else whichever is a common English word (english-words.ts), twice
 * first. Neither (a name, a word of another language): two letters, still one spelling for every
 * length of elongation.
 */
function unelongate(word: string): string {
  const twice = word.replace(ELONGATED, '$1$1');
  const once = word.replace(ELONGATED, '$1');
  const lower = (w: string) => w.toLowerCase();
  for (const known of [knownWord, isEnglishWord]) {
    if (known(lower(twice))) return twice;
    // Not a single letter: "YYYY" in a date format is no elongated "Y".
    if (once.length > 1 && known(lower(once))) return once;
  }
  return twice;
}

/**
 * Contractions typed without their apostrophe, which the negation rules and both readers would
 * otherwise meet as unknown words ("dont", "isnt"). Only forms that are not words themselves:
 * "its", "were", "ill", "well", "hell", "id", "lets" stay as typed.
 */
const CONTRACTIONS: Record<string, string> = Object.fromEntries([
  ...[
    'do',
    'does',
    'did',
    'is',
    'are',
    'was',
    'were',
    'has',
    'have',
    'had',
    'could',
    'should',
    'would',
    'must',
    'need',
  ].map((v) => [`${v}nt`, `${v}n't`]),
  ['dont', "don't"],
  ['cant', "can't"],
  ['wont', "won't"],
  ['aint', "ain't"],
  ['ive', "I've"],
  ['youre', "you're"],
  ['youve', "you've"],
  ['theyre', "they're"],
  ['theyve', "they've"],
  ['weve', "we've"],
  ['thats', "that's"],
  ['whats', "what's"],
  ['theres', "there's"],
  ['couldve', "could've"],
  ['shouldve', "should've"],
  ['wouldve', "would've"],
]);

/** Chat abbreviations and words spelt as said, as typed in chat: lower-case ("TY", "BC" are left). */
const CHAT_WORDS: Record<string, string> = {
  pls: 'please',
  plz: 'please',
  plse: 'please',
  thx: 'thanks',
  thnx: 'thanks',
  tnx: 'thanks',
  thanx: 'thanks',
  ty: 'thank you',
  tyvm: 'thank you very much',
  ur: 'your',
  bc: 'because',
  cuz: 'because',
  coz: 'because',
  cos: 'because',
  bcuz: 'because',
  bcoz: 'because',
  tmrw: 'tomorrow',
  tmr: 'tomorrow',
  tmrrw: 'tomorrow',
  '2morrow': 'tomorrow',
  '2day': 'today',
  b4: 'before',
  idk: "I don't know",
  tbh: 'to be honest',
  imo: 'in my opinion',
  ngl: 'not gonna lie',
  ppl: 'people',
  msg: 'message',
  rly: 'really',
  rn: 'right now',
  nvm: 'never mind',
  ofc: 'of course',
  tho: 'though',
  acct: 'account',
  pmt: 'payment',
  svc: 'service',
  gud: 'good',
  luv: 'love',
  nite: 'night',
  thru: 'through',
  wat: 'what',
  sum1: 'someone',
  no1: 'no one',
  evry: 'every',
  gr8: 'great',
  l8r: 'later',
};

/** Forms that need their neighbours: "u" and "r" alone, "im" before a word, "w/", "b/c". */
const CHAT_FORMS: [RegExp, string][] = [
  // Not "u.s." or "u/x": a full stop before a letter, or a slash, makes it part of a token.
  [/(^|[^\p{L}\p{N}'’/.])u(?=$|[^\p{L}\p{N}'’@/.]|\.(?!\p{L}))/gu, '$1you'],
  // "im" before a lower-case word only: the German "im Kalender" stays.
  [/(^|[^\p{L}\p{N}'’])[Ii]m(?= \p{Ll})/gu, "$1I'm"],
  [/(?<=\p{L} )r(?= \p{L})/gu, 'are'],
  [/\bw\/o(?=\s|$)/g, 'without'],
  [/\bw\/(?=\s|$)/g, 'with'],
  [/\bb\/c\b/g, 'because'],
];

/**
 * A comma typed without its space ("month,which"): two words, not one. Not a full stop, which
 * also joins a domain name ("site.com").
 */
const GLUED = /(?<=\p{Ll})([,;])(?=\p{Ll}{2,})/gu;

/**
 * A mistyped common word in an English message: a vowel doubled ("soo", "youu", "nicee") or two
 * neighbouring letters swapped after the first ("levae", "mnoths", "swithcing"), when exactly one
 * such edit gives a common word; failing those, one letter dropped inside the word. Only
 * lower-case words (a capital starts a name: "Orbitly" stays) that no word list knows, even a rare
 * one, of three letters or more (five for a swap: "cron" is no mistyped "corn"); a doubled
 * consonant stays ("acct", "sso"); and only in a message at least half of whose lower-case words
 * are common English, so that another language's words are not turned into English ones.
 */
function respell(word: string): string {
  const found = new Set<string>();
  for (let i = 0; i + 1 < word.length; i++) {
    if (word[i] === word[i + 1]) {
      const single = word.slice(0, i) + word.slice(i + 1);
      if (/[aeiouy]/.test(word[i]) && isEnglishWord(single)) found.add(single);
    } else if (i > 0 && word.length >= 5) {
      const swapped = word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
      if (isEnglishWord(swapped)) found.add(swapped);
    }
  }
  // A letter dropped inside a word of seven letters or more ("suprise", "definitly"): not at either
  // end, where a plural or another word begins, nor in a shorter word, where slang and jargon are
  // one letter from a word ("tech" is no mistyped "teach", "goated" no "gloated").
  if (found.size === 0 && word.length >= 7)
    for (let i = 1; i < word.length; i++)
      for (const letter of ALPHABET) {
        const longer = word.slice(0, i) + letter + word.slice(i);
        if (isEnglishWord(longer)) found.add(longer);
      }
  return found.size === 1 ? [...found][0] : word;
}
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz';
/** Longer "words" are no typos of a common word, and each edit would copy them: a bound on the work. */
const MAX_RESPELT = 20;
/**
 * Distinct words tried per message: a message of a thousand distinct unknown words took 42 ms
 * (`npm run bench -- --only=rules`); a hundred typos are more than any real message holds.
 */
const MAX_MENDINGS = 100;
/** A word with its digits ("gr8", "2day"), not part of a contraction or a longer token. */
const WORD = /(?<![\p{L}\p{N}'’])[\p{L}\p{N}]+(?![\p{L}\p{N}'’])/gu;
/** A lower-case word on its own: not a piece of a contraction or of a hyphenated word ("no-brainer"). */
const LOWER_WORD = /(?<![\p{L}'’-])\p{Ll}+(?![\p{L}'’-])/gu;
const ENGLISH_SHARE = 0.5;

function mostlyEnglish(text: string): boolean {
  // Lower-case words only: the names of products and people say nothing of the language.
  // Chat forms count as English ("cuz the app is gr8"); "im" does not (German "im Kalender").
  const words = text.match(/(?<![\p{L}\p{N}])[\p{Ll}\p{N}]*\p{Ll}[\p{Ll}\p{N}]*(?![\p{L}\p{N}])/gu) ?? [];
  const counted = words.filter((w) => w.length >= 2);
  if (counted.length === 0) return false;
  const english = (w: string) =>
    isEnglishWord(w) || knownWord(w) || Object.hasOwn(CHAT_WORDS, w) || Object.hasOwn(CONTRACTIONS, w);
  return counted.filter(english).length >= ENGLISH_SHARE * counted.length;
}

/** Contractions, abbreviations and mistyped words, in an English message (see each list). */
function spellOut(text: string): string {
  if (!mostlyEnglish(text)) return text;
  let out = text
    .replace(GLUED, (_, mark: string) => `${mark} `)
    .replace(WORD, (w) => {
      if (Object.hasOwn(CHAT_WORDS, w)) return CHAT_WORDS[w];
      const lower = w.toLowerCase();
      if (!Object.hasOwn(CONTRACTIONS, lower)) return w;
      const full = CONTRACTIONS[lower];
      return w[0] === w[0].toUpperCase() ? full[0].toUpperCase() + full.slice(1) : full;
    });
  for (const [re, full] of CHAT_FORMS) out = out.replace(re, full);
  // A word repeated is mended once (a long message repeats its typos).
  const mended = new Map<string, string>();
  return out.replace(LOWER_WORD, (w) => {
    if (w.length < 3 || w.length > MAX_RESPELT || isAnyEnglishWord(w) || knownWord(w)) return w;
    let m = mended.get(w);
    if (m === undefined) {
      if (mended.size >= MAX_MENDINGS) return w;
      mended.set(w, (m = respell(w)));
    }
    return m;
  });
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
  const plain = text
    .replace(URL, URL_TOKEN)
    .replace(EMAIL, EMAIL_TOKEN)
    .replace(HANDLE, (_, lead: string) => `${lead}${HANDLE_TOKEN}`)
    .replace(/\p{L}+/gu, (w) => (ELONGATED_ONE.test(w) ? unelongate(w) : w))
    .replace(SHOUTED, (w) => w.toLowerCase())
    .replace(REPEATED_MARKS, '$1');
  return spellOut(plain);
}
