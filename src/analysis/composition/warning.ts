/**
 * Advice to others against a company: "don't bother", "don't waste your money", "steer clear",
 * "save yourself the hassle", "go literally anywhere else", "I wouldn't wish it on my worst enemy",
 * "Verdict: avoid.", "Never again." Words a lexicon reads as a complaint denied ("don't bother" is
 * "bother" under a negator) or as nothing at all; said to other customers, they are the strongest
 * complaint there is. (The rules that use them: ../composition.ts.)
 */

/** A sentence that opens with advice against (after any "please", "seriously", "trust me"). */
const OPENS = String.raw`(?:^|[.!?:;,—–\-]\s*|\b(?:advice|tip|psa|verdict|bottom line|word to the wise|my answer)\W*\s*|\band\s+)`;
const ADVICE = String.raw`(?:(?:please|seriously|honestly|just|so|trust me|folks|guys|people)[,!]?\s+)*`;
const DONT = String.raw`(?:don['’]?t|do not|never) (?:bother(?=\s*(?:[.!,;]|$)|\s+(?:with|going|trying|calling|contacting|asking|complaining|booking|buying|ordering)\b)|waste (?:your|ur)|make the (?:same )?mistake|fall for|trust (?:them|this|these|it|their)|buy (?:from|this|it|anything|their)|book (?:with|this|here|them|through)|use (?:this|them|it|their)|fly (?:with|them)|order (?:from|here)|sign up|go there|shop (?:here|there|with))\b`;
const AVOID = String.raw`avoid\b(?:\s+(?:at all costs|like the plague|this|these|them|it|this \p{L}+))?\s*(?:[.!]|$)`;
export const WARNING = new RegExp(
  [
    `${OPENS}${ADVICE}(?:${DONT}|${AVOID})`,
    String.raw`\bavoid (?:at all costs|like the plague)\b`,
    String.raw`\b(?:i['’]d|i would|i['’]ll|we['’]d|we would) (?:\p{L}+ )?(?:avoid|steer clear|stay away)\b`,
    String.raw`\bsteer (?:well )?clear\b`,
    String.raw`\bstay (?:well |far )?away from\b`,
    String.raw`\bsave your(?:self| money| time| sanity| breath| cash)\b`,
    String.raw`\b(?:go|look|shop|take your (?:business|money|custom)) (?:literally )?(?:anywhere|somewhere) else\b`,
    String.raw`\blook elsewhere\b`,
    String.raw`\bwouldn['’]?t wish (?:it|this|them|that)\b[^.!?]{0,30}\bon\b`,
    String.raw`\bdo yourself a favou?r\b`,
    String.raw`\byou(?:['’]ve| have) been warned\b`,
    String.raw`\bbuyer beware\b`,
    String.raw`(?:^|[.!?:]\s*)never again\s*(?:[.!,]|$)`,
  ].join('|'),
  'iu',
);

/** Advice against the company, not asked about: -1; else 0. */
export function warning(text: string): -1 | 0 {
  return WARNING.test(text) && !/\?\s*$/u.test(text) ? -1 : 0;
}
