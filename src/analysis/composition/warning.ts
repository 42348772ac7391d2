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
// Not advice for the company: "never fly with anyone else", "don't trust their competitors".
const NOT_ELSEWHERE = String.raw`(?!\s+(?:anyone|anybody|any other|another|elsewhere|competitors?|rivals?|the others|other \p{L}+)\b)`;
const DONT = String.raw`(?:don['’]?t|do not|never) (?:bother(?=\s*(?:[.!,;]|$)|\s+(?:with|going|trying|calling|contacting|asking|complaining|booking|buying|ordering)\b)|waste (?:your|ur)|make the (?:same )?mistake|fall for|trust (?:them|this|these|it|their)|buy (?:from|this|it|anything|their)|book (?:with|this|here|them|through)|use (?:this|them|it|their)|fly (?:with|them)|order (?:from|here)|sign up|go there|shop (?:here|there|with))\b${NOT_ELSEWHERE}`;
/** What advice avoids: the company ("it", "them", "this place"), not "the weekend crowds". */
const AVOID = String.raw`avoid\b(?:\s+(?:at all costs|like the plague|this|these|them|it|this \p{L}+))?\s*(?:[.!]|$)`;
const AVOIDED = String.raw`(?!(?:the|their|this|that)\s+(?:\p{L}+\s+){0,2}?(?:crowds?|rush|traffic|queues?|peak|weekends?|mornings?|evenings?|hours?|times?|mistakes?)\b)(?:it|them|this|that|here|there|(?:the|their|this|that)\s+\p{L}+)\b`;
export const WARNING = new RegExp(
  [
    `${OPENS}${ADVICE}(?:${DONT}|${AVOID})`,
    String.raw`\bavoid (?:at all costs|like the plague)\b`,
    String.raw`\b(?:i['’]d|i would|i['’]ll|we['’]d|we would) (?:\p{L}+ )?(?:avoid|steer clear of|stay away from) ${AVOIDED}`,
    String.raw`\b(?:i['’]d|i would|i['’]ll|we['’]d|we would) (?:\p{L}+ )?(?:steer clear|stay away)\s*(?:[.!]|$)`,
    // Advice that opens its sentence, or closes it ("… steer clear."): not "the planner helps me steer clear of traffic".
    String.raw`(?:^|[.!?:;,]\s*)${ADVICE}(?:steer (?:well )?clear|stay (?:well |far )?away|save your(?:self the (?:hassle|bother|trouble|headache|grief)| money| time| sanity| breath| cash)|look elsewhere)\b`,
    String.raw`\b(?:steer (?:well )?clear|stay (?:well |far )?away|look elsewhere)\s*(?:[.!]|$)`,
    String.raw`\b(?:go|look|shop|take your (?:business|money|custom)) (?:literally )?(?:anywhere|somewhere) else\b`,
    String.raw`\bwouldn['’]?t wish (?:it|this|them|that)\b[^.!?]{0,30}\bon\b`,
    String.raw`\bdo yourself a favou?r(?:,| and| -)? (?:avoid|stay away|steer clear|look elsewhere|go (?:elsewhere|somewhere else|anywhere else)|(?:pick|choose|find|use|try|book with) (?:another|a different|someone else|somewhere else))\b`,
    String.raw`\byou(?:['’]ve| have) been warned\b`,
    String.raw`\bbuyer beware\b`,
    String.raw`(?:^|[.!?:]\s*)never again\s*(?:[.!,]|$)`,
  ].join('|'),
  'iu',
);
/** A negator just before the advice says the opposite: "I wouldn't go anywhere else", "no need to look elsewhere". */
const NEGATED_ADVICE = /(?:n['’]?t|\bnot|\bnever|\bno need to|\bno reason to)\s+(?:\p{L}+\s+){0,2}$/iu;

/** Advice against the company, not asked about: -1; else 0. */
export function warning(text: string): -1 | 0 {
  const m = text.match(WARNING);
  if (!m || /\?\s*$/u.test(text)) return 0;
  // The advice's own first words, without the sentence opening the match may start with.
  const at = m.index! + m[0].search(/\p{L}/u);
  return NEGATED_ADVICE.test(text.slice(0, at)) ? 0 : -1;
}
