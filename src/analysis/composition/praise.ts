/**
 * Praise said plainly: thanks with nothing complained of, clear praise, and idioms of praise. (The
 * rules that use them: ../composition.ts.)
 */
import { BY_COMPARISON } from './comparison.js';
import { MARKER } from './contrast.js';
import { FAILURE, MENDED, MENDING, PLAIN_FAILURE, SERVICE_FAILED, undeniedFailures } from './failures.js';
import { CLEAR, lean, NEGATED, type ReaderLean, scopedWords, SHORT_WORDS, words } from './reading.js';
import { IRONIC, SARCASM_CUE, SCARE_QUOTES } from './sarcasm.js';
import { complaint, praise } from './vocabulary.js';

/**
 * Thanks or praise with nothing complained of: "@user sorted my transfer in one call. cheers",
 * "thank you for walking me through the restore, got all my photos back", "staff in maui were
 * incredible, already planning our next trip". Posts tagged to a company are mostly complaints, and
 * the stack carries that into thanks and praise; the lexicons read them right when nothing in the
 * message fails, asks or turns. Only a negative reading is turned round (composePolarity).
 */
export const GRATITUDE =
  /\b(?:thanks?|thank you|thx|ty|cheers|grateful|kudos|props|shout[ -]?out|lifesavers?|hats off)\b/iu;

export const REQUEST =
  /\b(?:please|pls|plz|kindly|could you|can you|would you|can someone|could someone|fix this|in advance|if (?:you|someone|somebody|your team) (?:could|can|would))\b/iu;

/** Every mending of a message, compiled once (matchAll copies it). */
const MENDS_ALL = new RegExp(`${MENDED.source}|${MENDING.source}`, 'giu');

export function plainPraise(text: string, reader?: ReaderLean): 1 | 0 {
  // The cheap tests first: most messages thank nobody.
  if (!GRATITUDE.test(text) || /\bthanks? (?:a lot|a bunch|so much) for\b/iu.test(text)) return 0;
  if (/\?/.test(text) || words(text) > SHORT_WORDS || REQUEST.test(text) || [...text.matchAll(MARKER)].length > 0)
    return 0;
  // A failure is allowed only when it was put right after it was told: "thank you for walking me
  // through the restore, got all my photos back"; not "many thanks, although the replacement also broke".
  const mends = [...text.matchAll(MENDS_ALL)];
  const mendedAt = mends.length > 0 ? mends.at(-1)!.index : -1;
  const mended = mendedAt >= 0;
  // "thank you for fixing the billing error": a failure within two words after the mending is its object.
  const mendedEnd = mendedAt >= 0 ? mendedAt + mends.at(-1)![0].length : -1;
  const mendedObject = (m: RegExpExecArray) => mendedEnd >= 0 && words(text.slice(mendedEnd, m.index)) <= 2;
  if (undeniedFailures(text).some((m) => m.index > mendedAt && !mendedObject(m))) return 0;
  if (/\b(?:although|though|except|apart from)\b/iu.test(text)) return 0;
  const service = text.match(SERVICE_FAILED);
  if (service && service.index! > mendedAt) return 0;
  // Sarcasm's marks, praise in scare quotes, or something still not done: no plain praise.
  if (SARCASM_CUE.test(text) || IRONIC.test(text) || SCARE_QUOTES.test(text) || /\bstill\b/iu.test(text)) return 0;
  // A complaint word said plainly (not denied) is something complained of.
  const scoped = scopedWords(text);
  if (!mended && scoped.some(({ word, distance }) => distance === Infinity && complaint(word))) return 0;
  // Praise denied ("not once has it impressed me") is no praise.
  if (scoped.some(({ word, distance }) => distance !== Infinity && praise(word))) return 0;
  // Thanks on the way out ("closing our account, thanks for the good years") is a goodbye, not praise.
  if (
    /\b(?:clos(?:e|ing)|cancel\w*|shut\w*|leaving|last (?:month|week|day)|end of (?:the|our) contract|not (?:continu|renew)\w*)\b/iu.test(
      text,
    )
  )
    return 0;
  return mended || lean(text.replace(GRATITUDE, ' '), reader) >= CLEAR ? 1 : 0;
}

/**
 * Praise said plainly and nothing else: "The salesman was polite and kind.", "the importer is
 * responsive and saves us hours every week". The stack reads some such praise negative when its
 * words sit beside complaints in the corpus ("hours", "polite"): the template probe's clear
 * positives and the real posts' praise (docs/analysis.md). Short, the lexicons and the word reader
 * together clearly positive, and nothing that could turn it: no negator, contrast, question,
 * failure, complaint word, request, leaving or sarcasm's marks. Sarcasm without them ("Wow, what
 * service") is the learned detector's: heads.ts drops this verdict when the detector finds the
 * message sarcastic.
 */
const CLEAR_PRAISE_WORDS = 20;

const CLEAR_PRAISE_LEAN = 2 * CLEAR;
export function clearPraise(text: string, reader?: ReaderLean): 1 | 0 {
  if (/\?/.test(text) || words(text) > CLEAR_PRAISE_WORDS || NEGATED.test(text)) return 0;
  if (
    [...text.matchAll(MARKER)].length > 0 ||
    /\b(?:although|though|except|still|used to|anymore|again)\b/iu.test(text)
  )
    return 0;
  // Praise withheld or only wished for: "far from clear", "hardly reliable", "could be faster".
  if (
    /\b(?:far from|hardly|barely|scarcely|lack\w*|less than|anything but|rarely|seldom|(?:could|would|should|might) (?:be|have)|supposed to|if only|wish\w*|hope\w*|expected|promised|meant to)\b/iu.test(
      text,
    )
  )
    return 0;
  if (undeniedFailures(text).length > 0 || SERVICE_FAILED.test(text) || PLAIN_FAILURE.test(text)) return 0;
  if (SARCASM_CUE.test(text) || IRONIC.test(text) || SCARE_QUOTES.test(text) || REQUEST.test(text)) return 0;
  if (/\b(?:clos(?:e|ing)|cancel\w*|leaving|switch\w*|refund\w*)\b/iu.test(text)) return 0;
  // A turn misspelt or in time ("was realy good untill recently, now they …"), or a goodbye ("im out").
  if (/\b(?:untill?|till?|recently|lately|now|(?:i['’]?m|we['’]?re) out)\b/iu.test(text)) return 0;
  if (scopedWords(text).some(({ word }) => complaint(word))) return 0;
  return lean(text, reader) >= CLEAR_PRAISE_LEAN ? 1 : 0;
}

/**
 * Praise said by an idiom whose words a lexicon misreads ("nothing beats", "blown away", "above and
 * beyond", "an absolute star"): positive when nothing in the message complains.
 */
const PRAISE_IDIOM = new RegExp(
  `\\b(?:nothing (?:beats|compares to|comes close to|tops)|can['’]?t thank (?:you|them|him|her|the team|you all|you guys) enough|blown away|without (?:a|any) (?:hitch|hiccup|glitch|fuss|hassle)|(?:is|are|was|were) (?:now )?a thing of the past|went above and beyond|goes above and beyond|above and beyond|an? absolute (?:star|legend|gem|hero|lifesaver|joy|delight|treat|pleasure)|thumbs up|hats off|spot on|game[- ]?changer|exceeded (?:all |every |my |our )?(?:\\p{L}+ )?expectations?|unbelievably (?:good|kind|helpful|fast|friendly|easy|smooth|quick|tasty|comfortable)|(?:my|our) (?:new )?go-?to\\b|won (?:me |us )?over|an? (?:total|complete|real|true|firm|full) convert|(?:never|\\p{L}*n['’]t|not)(?: \\p{L}+){0,3} anything (?:but|other than|less than) (?:friendly|helpful|polite|great|excellent|brilliant|perfect|professional|kind|lovely|fantastic|superb|reliable|fast|quick|prompt|spot on|courteous|welcoming|efficient)|(?:really|highly|genuinely|honestly) rate\\b|(?:a )?(?:fan|customer)s? for life|miles (?:ahead|better)|(?:become|becoming|is|are) (?:a|my|our) (?:real |firm |new |definite )?favou?rite|keeps? impressing|(?:treat|treated|treats) (?:us|me) like (?:royalty|family|kings|queens)|(?:so |really |very )?glad (?:i|we) (?:did|waited|stuck|stayed|persevered|kept going|gave (?:it|them))|the only (?:\\p{L}+ ){0,2}(?:i|we)(?:['’]d|['’]ll| would| will)? (?:ever )?(?:use|trust|recommend|go to|buy from|fly with|bank with|shop (?:at|with)|order from)|${BY_COMPARISON})\\b`,
  'iu',
);

/** Praise by idiom is short; a long message around one is as often sarcasm ("Truly above and beyond. Refund me."). */
const IDIOM_WORDS = 15;

export function praiseIdiom(text: string, reader?: ReaderLean): 1 | 0 {
  if (!PRAISE_IDIOM.test(text) || /\?/.test(text) || words(text) > IDIOM_WORDS) return 0;
  // "nothing" of "nothing beats" is no failure: the rest of the message is judged without the idiom.
  const rest = text.replace(PRAISE_IDIOM, ' ');
  // The word reader at twice the margin: on a remainder of plain facts ("installed the printer driver on
  // both laptops") it leans on what such words complain of in the corpus.
  return !FAILURE.test(rest) && lean(rest, reader) > -2 * CLEAR ? 1 : 0;
}
