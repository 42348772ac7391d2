/**
 * A small sentiment lexicon for customer feedback, from general knowledge of how customers write,
 * never from an evaluation set (`buggy` and `overpriced`, which an audit found matching only dev
 * messages among the cues, are left out here too). Its score is ONE feature of the heads, whose
 * weight is learned from the corpus words that carry it: a word the corpus happens not to use still
 * counts, as much as its siblings, so entries need no corpus line of their own (unlike the cues,
 * cues.test.ts). General lexicons miss domain negatives ("too expensive", "keeps crashing", "cancel
 * my subscription"), so those are phrases here. Returns a score in [-1, 1], or 0 when no term is
 * found.
 */
const PHRASES: [RegExp, number][] = [
  [/\btoo (expensive|pricey|costly|slow|complicated)\b/g, -0.8],
  [/\bkeeps? (crashing|failing|freezing|logging me out|breaking)\b/g, -0.9],
  [/\b(cancel|close) (my|our) (subscription|account|plan)\b/g, -0.7],
  [/\bnot worth\b/g, -0.7],
  [/\b(charged|billed) (me )?twice\b/g, -0.7],
  [/\bno (one|body) (answers|replies|responds|helps)\b/g, -0.8],
  [/\b(waste of (money|time))\b/g, -0.9],
  [/\bworks? (great|perfectly|well|fine)\b/g, 0.7],
  [/\bthank(s| you)\b/g, 0.5],
  [/\bnever (worked|works|arrived|answered)\b/g, -0.7],
  [/\bgoes down\b/g, -0.6],
  [/\bexactly what (we|i) (needed|wanted)\b/g, 0.8],
  [/\bworth it\b/g, 0.6],
  [/\b(doesn'?t|does not|don'?t|isn'?t|is not|won'?t|can'?t|cannot) (work|load|open|sync|save|connect)\w*\b/g, -0.6],
  [/\b(still|again) (broken|down|not working|waiting|slow)\b/g, -0.7],
  [/\b(no|not a single) (issues?|problems?|complaints?|crash(es)?)\b/g, 0.5],
  [/\bgame ?changer\b/g, 0.9],
  [/\b(fed up|had enough|sick of)\b/g, -0.9],
  [/\bkeeps? getting better\b/g, 0.8],
  [/\b(can'?t|cannot|couldn'?t) fault\b/g, 0.8],
  [/\bnever (once )?(let|lets|letting) (us|me) down\b/g, 0.8],
  [/\b(can'?t|couldn'?t) complain\b/g, 0.5],
  [/\bnot bad at all\b/g, 0.5],
];

const WORDS: Record<string, number> = {
  love: 0.9,
  loved: 0.9,
  great: 0.8,
  excellent: 0.9,
  amazing: 0.9,
  awesome: 0.9,
  fantastic: 0.9,
  perfect: 0.9,
  good: 0.5,
  nice: 0.5,
  happy: 0.7,
  helpful: 0.7,
  easy: 0.5,
  fast: 0.4,
  smooth: 0.6,
  intuitive: 0.6,
  reliable: 0.6,
  recommend: 0.7,
  impressed: 0.8,
  best: 0.8,
  glad: 0.6,
  wonderful: 0.9,
  solid: 0.5,
  quick: 0.4,
  clean: 0.4,
  bad: -0.6,
  terrible: -0.9,
  awful: -0.9,
  horrible: -0.9,
  hate: -0.9,
  worst: -0.9,
  useless: -0.8,
  broken: -0.7,
  slow: -0.5,
  crash: -0.7,
  crashes: -0.7,
  crashing: -0.7,
  bug: -0.5,
  bugs: -0.5,
  error: -0.4,
  errors: -0.5,
  annoying: -0.7,
  frustrating: -0.8,
  frustrated: -0.8,
  disappointed: -0.8,
  disappointing: -0.8,
  confusing: -0.6,
  unhappy: -0.8,
  angry: -0.8,
  ridiculous: -0.8,
  unacceptable: -0.9,
  mess: -0.7,
  expensive: -0.4,
  cancel: -0.4,
  refund: -0.4,
  outage: -0.6,
  down: -0.3,
  lost: -0.5,
  wrong: -0.5,
  fail: -0.6,
  fails: -0.6,
  failed: -0.5,
  ignored: -0.7,
  clunky: -0.6,
  meh: -0.4,
  brilliant: 0.9,
  appreciated: 0.6,
  favorite: 0.8,
  favourite: 0.8,
  relieved: 0.5,
  problem: -0.3,
  problems: -0.4,
  issue: -0.2,
  issues: -0.3,
  stuck: -0.5,
  unable: -0.4,
  locked: -0.4,
  unreadable: -0.7,
  annoyed: -0.7,
  fed: -0.3,
  sluggish: -0.5,
  flaky: -0.6,
  unreliable: -0.7,
  dated: -0.3,
  outdated: -0.4,
  cluttered: -0.5,
  poor: -0.6,
  lacking: -0.4,
  sucks: -0.8,
  garbage: -0.9,
  joke: -0.6,
  shame: -0.6,
  upset: -0.7,
  furious: -0.9,
  embarrassing: -0.7,
  lovely: 0.8,
  delighted: 0.9,
  thrilled: 0.9,
  seamless: 0.7,
  seamlessly: 0.7,
  flawless: 0.9,
  flawlessly: 0.9,
  kudos: 0.8,
  recommended: 0.7,
  impressive: 0.8,
  snappy: 0.6,
  handy: 0.5,
  useful: 0.5,
  powerful: 0.5,
  beautiful: 0.7,
  simple: 0.3,
  appreciate: 0.6,
  grateful: 0.8,
  thx: 0.5,
  ty: 0.4,
  cool: 0.5,
  neat: 0.5,
  stable: 0.4,
  painless: 0.6,
  straightforward: 0.4,
  better: 0.3,
  fixed: 0.3,
  enjoy: 0.7,
  enjoys: 0.7,
  pleased: 0.8,
  superb: 0.9,
  outstanding: 0.9,
  disaster: -0.9,
  nightmare: -0.9,
  waiting: -0.3,
  laggy: -0.6,
  unusable: -0.9,
  worse: -0.7,
  painful: -0.7,
  hard: -0.3,
  missing: -0.3,
  // Common French, German, Spanish, Portuguese, Italian and Dutch words (the encoder is
  // English-first, so these carry most of a non-English message's tone).
  gut: 0.5,
  toll: 0.7,
  zufrieden: 0.6,
  danke: 0.4,
  schlecht: -0.6,
  langsam: -0.5,
  leider: -0.3,
  enttäuscht: -0.8,
  ärgerlich: -0.7,
  unbrauchbar: -0.9,
  katastrophe: -0.9,
  bien: 0.4,
  génial: 0.8,
  parfait: 0.9,
  merci: 0.4,
  satisfait: 0.6,
  nul: -0.8,
  lent: -0.5,
  déçu: -0.8,
  déçus: -0.8,
  inacceptable: -0.9,
  bueno: 0.5,
  genial: 0.8,
  excelente: 0.9,
  gracias: 0.4,
  encanta: 0.8,
  malo: -0.6,
  lento: -0.5,
  lenta: -0.5,
  pésimo: -0.9,
  decepcionado: -0.8,
  inaceptable: -0.9,
  bom: 0.5,
  ótimo: 0.8,
  obrigado: 0.4,
  obrigada: 0.4,
  adoro: 0.8,
  ruim: -0.6,
  péssimo: -0.9,
  horrível: -0.9,
  buono: 0.5,
  ottimo: 0.8,
  grazie: 0.4,
  perfetto: 0.9,
  pessimo: -0.9,
  deluso: -0.8,
  inaccettabile: -0.9,
  goed: 0.5,
  prima: 0.5,
  geweldig: 0.8,
  bedankt: 0.4,
  slecht: -0.6,
  traag: -0.5,
  teleurgesteld: -0.8,
  fault: -0.4,
};

const NEGATORS = new Set([
  'not',
  "don't",
  'dont',
  "doesn't",
  'doesnt',
  'never',
  'no',
  "isn't",
  'isnt',
  "wasn't",
  "can't",
  'cannot',
  'hardly',
  'barely',
  'scarcely',
  'nicht',
  'kein',
  'keine',
  'pas',
  'jamais',
  'não',
  'nao',
  'niet',
  'geen',
]);

/** Emoji customers use for praise and for anger (the encoder reads them poorly). */
const EMOJI: [RegExp, number][] = [
  [/[😍🥰😊🙂😀😃😄😁🤩👍👏🙌🔥❤💯⭐🎉🚀💪✨🥳]/gu, 0.7],
  [/[😡😠🤬😤👎💀🙄😞😢😭🤦😩😒💩🐌😖😫]/gu, -0.7],
];

export interface LexiconReading {
  /** Overall tone in [-1, 1], 0 when no term is found. */
  score: number;
  hits: number;
  /** Sums of the positive and of the negative contributions (magnitudes). */
  positive: number;
  negative: number;
  /** Negative words under a negator ("not bad", "can't fault"): praise by understatement. */
  flipped: number;
  /** Positive words under a negator ("not exactly fast", "hardly intuitive"): criticism by understatement. */
  deniedPraise: number;
}

/** Our lexicon's weight of one lower-case word (undefined when it has none). */
export const ownValence = (word: string): number | undefined => WORDS[word];

export function lexiconScore(text: string): { score: number; hits: number } {
  const r = lexiconReading(text);
  return { score: r.score, hits: r.hits };
}

export function lexiconReading(text: string): LexiconReading {
  const lower = text.toLowerCase();
  let total = 0;
  let hits = 0;
  let positive = 0;
  let negative = 0;
  let flipped = 0;
  let deniedPraise = 0;
  const add = (w: number) => {
    total += w;
    if (w > 0) positive += w;
    else negative -= w;
  };
  for (const [re, w] of [...PHRASES, ...EMOJI]) {
    const n = lower.match(re)?.length ?? 0;
    for (let k = 0; k < n; k++) add(w);
    hits += n;
  }
  const tokens = lower.match(/[\p{L}']+/gu) ?? [];
  tokens.forEach((tok, i) => {
    const w = WORDS[tok];
    if (w === undefined) return;
    // "not good" flips and softens; look two tokens back ("not very good").
    const negated = NEGATORS.has(tokens[i - 1] ?? '') || NEGATORS.has(tokens[i - 2] ?? '');
    if (negated && w < 0) flipped++;
    if (negated && w > 0) deniedPraise++;
    add(negated ? -w * 0.6 : w);
    hits++;
  });
  if (hits === 0) return { score: 0, hits: 0, positive: 0, negative: 0, flipped: 0, deniedPraise: 0 };
  return {
    score: Math.max(-1, Math.min(1, total / Math.sqrt(hits * 1.5))),
    hits,
    positive,
    negative,
    flipped,
    deniedPraise,
  };
}
