/**
 * The envelope of a message (greeting, subject line, sign-off), which the composition rules set
 * aside. (The rules that use them: ../composition.ts.)
 */
import { words } from './reading.js';

/**
 * The message without its envelope: a greeting ("Hi team,", "Good morning,"), a subject or
 * reference line ending in a dash or colon ("Re: invoice —", "Case #123 —", "Billing:"), with its
 * title when a greeting follows ("Subject: Thank you! Hello, …": the title is no praise) and a
 * sign-off ("— Lucia", "Thanks, Ana"), which tickets and emails wrap around what is said. (A hyphen
 * after a letter joins a word: "the hotel is top-notch." keeps its "-notch".)
 */
const GREETING = /^\W*(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|greetings)\b[^,.!\n]{0,30}[,.!\n]\s*/iu;

const SUBJECT =
  /^[^.!?\n—–]{1,40}?\s(?:—|–|-{1,2})\s+|^(?:re|fwd?|subject|ticket|case)\b[^:\n]{0,30}:\s*(?:[^\n]{1,50}?[.!?]?\s+(?=(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|greetings)\b))?/iu;

// (A hyphen right after a letter joins a word: "the hotel is top-notch." keeps its "-notch".)
const SIGN_OFF =
  /\s*(?:(?:—|–|(?<!\p{L})-{1,2})\s*\p{L}+|(?:thanks|thank you|(?:kind |best |warm |warmest )?regards|yours (?:sincerely|faithfully|truly)|best|cheers)[,!]?\s+\p{L}+)\.?\s*$/iu;

export function core(text: string): string {
  let t = text.trim();
  for (let k = 0; k < 2; k++)
    t = t
      .replace(SUBJECT, '')
      .replace(GREETING, '')
      .replace(/^(?:@user\s+)+/u, '');
  const signed = t.replace(SIGN_OFF, '');
  return words(signed) >= 2 ? signed.trim() : t;
}

/** Courtesy a contrast's later part may end on ("…, could you check? ty"): no lean of its own. */
export const SIGN_OFF_COURTESY =
  /\b(?:thanks?(?: you)?(?: (?:so|very) much)?|thx|ty|cheers|please|pls|kindly|(?:i|we)(?:['’]d| would) (?:be )?(?:really |very |most |so |truly |extremely )?(?:appreciate|grateful)(?: (?:it|that|this))?(?: (?:for|if) (?:any|an?|your|the|you) (?:\p{L}+ )?\p{L}+)?|(?:any (?:further |more )?help|this|it) (?:would be|is) (?:much |greatly |really |very )?appreciated|thank you (?:so much |very much )?for your (?:time|help|patience|understanding))\b/giu;
