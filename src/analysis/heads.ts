import { featureRow, type Encoded } from './features.js';
import { lexiconScore } from './lexicon.js';
import { predict, type LinearModel } from './linear.js';
import { normalizeText } from './normalize.js';
import { compositionVerdict, type Verdict } from './composition.js';
import {
  cancelsOnlyThings,
  deniedOnly,
  saysStaying,
  saysLeaving,
  scopeCounts,
  scopeInputs,
  type ScopeCounts,
} from './intent-scope.js';
import { saysUpgrading } from './upgrade-statement.js';
import { lastClause, lexiconPriors, PRIOR_NAMES, understatement } from './priors.js';
import { logit, sigmoid } from './second-stage.js';
import { INTENTIONS } from './taxonomy.js';
import { drivingWords } from './word-explain.js';
import { sarcasmProbability, type SarcasmDetector } from './sarcasm-detector.js';
import { wordFeatures, type SparseRow } from './word-features.js';
import {
  unpackWordReader,
  wordProbabilities,
  type PackedWordReader,
  type WordProbabilities,
  type WordReader,
} from './word-reader.js';

/**
 * Trained heads, two readers and a second stage:
 * - the embedding reader: heads on the features of features.ts (the message's embedding and the
 *   domain cues): topics and intentions are multi-label logistic regressions, polarity a softmax
 *   over three classes, churn its own logistic head (it drives churn risk and most alerting
 *   segments). A long message's pieces can be read by the same heads (HeadsOptions.stackPieces);
 * - the word reader (word-reader.ts): sparse logistic models over words, word pairs and characters;
 * - per label, a second stage (stacking) weighs the readers' out-of-fold probabilities; polarity
 *   blends the two readers' log-probabilities. The sentiment value is the blended polarity's
 *   expectation.
 * HeadsOptions holds the choices `npm run eval` can vary; variants measured worse and removed are
 * in docs/analysis.md.
 *
 * Everything that is chosen is chosen on out-of-fold predictions of the training corpus, never on
 * an evaluation set: each label's probability is calibrated (Platt scaling), stacked, and its
 * threshold is the one with the best F1 (churn: the best recall at a precision target); polarity's
 * blend weight and class offsets by out-of-fold accuracy.
 * `npm run eval` trains these heads inside each outer fold, so these choices are made by nested
 * cross-validation there.
 *
 * This file holds the heads' shape and their reading of a message; train-heads.ts trains them, and
 * second-stage.ts holds the small fits of calibration and stacking.
 *
 * Bump HEADS_VERSION whenever training or features change: it is part of the cache key.
 */
export const HEADS_VERSION = 27;

/** The choices `npm run eval` compares by cross-validation; the defaults are the chosen ones. */
export interface HeadsOptions {
  /** Platt scaling of each label and calibrated class offsets for polarity. */
  calibrate: boolean;
  /**
   * Sentence-level reading: a long message is embedded by its pieces, each label head also reads
   * them, and the second stage weighs the pieces' max and mean. Off (the default since the word
   * reader: with it, the pieces measured within noise on every figure, at 1.6 embedded texts per
   * message instead of 1; docs/analysis.md): every message is embedded whole.
   */
  stackPieces: boolean;
  /** The word reader's probabilities enter every label's second stage and polarity's blend. */
  stackWords: boolean;
  /**
   * `recommend` only on a message read positive: the taxonomy's recommend is praise, and v3 put it
   * on complaints (14 of its 46 false alarms on a held-out set were complaints).
   */
  recommendNeedsPositive: boolean;
  /**
   * The polarity class is the band of the expected sentiment (Σ P(class) × the class's mean), and
   * the value is that expectation: a weak decision stays weak (near 0) instead of being pushed to
   * ±0.2 into the argmax's class, so the sign and size of the score mean what the docs say. Off
   * (measured 2.9 points of polarity better): the argmax class, and a value outside it goes into it
   * by the decision's margin (sentimentValue), not to its edge as in v3.
   */
  sentimentFromExpectation: boolean;
  /**
   * Each intention's second stage also weighs whether its words are said or denied
   * (intent-scope.ts: "no plans to cancel" is not churn).
   */
  scope: boolean;
  /**
   * A label whose words the message only denies is not given (intent-scope.ts deniedOnly: "no
   * need for a refund", "no plans to upgrade"): a rule after the stack, because the stack, given
   * the same counts as inputs, kept flagging most of them (the probe's negated refund 0.53,
   * upgrade 0.62 with the v14 heads).
   */
  denialVeto: boolean;
  /**
   * Composition rules after polarity's stack (composition.ts): a short contrast is judged by its
   * later part, denied praise ("not exactly fast") and a praise opening before a failure ("Brilliant,
   * the board is down again") are complaints. A verdict only turns round a reading of the opposite
   * sign, moving its probabilities halfway toward the verdict (composePolarity).
   */
  composition: boolean;
  /**
   * The learned sarcasm detector (sarcasm-detector.ts), trained on the sarcasm set and the corpus:
   * a message read positive that no composition rule judged, and that it finds sarcastic, is turned
   * as a rule's verdict turns it. Off: the rules alone hear sarcasm.
   */
  learnedSarcasm: boolean;
  /**
   * Both readers' polarity models also learn from the sarcasm set's lines (data/sarcasm):
   * sarcastic and literal complaints as negative, sincere praise (with a problem or not) as
   * positive, its neutral lines as neutral. Eight writers in registers the corpus lacks; topics,
   * intentions and the second stage still learn from the corpus alone.
   */
  sarcasmSetPolarity: boolean;
  /**
   * Both readers' polarity models also learn from courtesy envelopes of the corpus' English lines
   * (courtesy-envelope.ts): the line inside a greeting or sign-off, its polarity unchanged, so that
   * thanks and greetings stop counting as praise. Only a fold's own lines are wrapped.
   */
  courtesyEnvelopes: boolean;
  /**
   * The other intentions' thresholds: the highest whose out-of-fold F1 is within this of the best
   * (0: the lowest with the best F1). The F1 curve is flat near its top, so the lowest best moved a
   * grid step between trainings on nearly the same corpus (upgrade 0.275 → 0.225), flagging denied
   * upgrades; within a tolerance the choice leans to fewer false flags.
   */
  intentionTolerance: number;
  /**
   * Churn's decision: the best out-of-fold recall at a precision of at least this. 0.75 since
   * 2026-12-05 (0.8 before): on seed 1311's folds 0.8 gave churn P 0.826 / R 0.713, 0.77 0.799 / 0.743,
   * 0.75 0.781 / 0.763, the only one of the three with both over 0.75 (docs/analysis.md).
   */
  churnPrecision: number;
  /**
   * Polarity's second stage is a softmax over both readers' log-probabilities and the lexicon
   * priors (priors.ts: VADER, AFINN, the clause after the last "but"), fitted on out-of-fold rows;
   * off: the two readers' log-probabilities blended by one weight, as in v3.
   */
  priors: boolean;
  /** Passes over the corpus, and the L2 weight, of every embedding head's training. */
  epochs: number;
  l2: number;
}

export const DEFAULT_HEADS_OPTIONS: HeadsOptions = {
  calibrate: true,
  stackPieces: false,
  stackWords: true,
  priors: true,
  recommendNeedsPositive: true,
  sentimentFromExpectation: false,
  scope: true,
  denialVeto: true,
  composition: true,
  learnedSarcasm: true,
  sarcasmSetPolarity: true,
  courtesyEnvelopes: false,
  intentionTolerance: 0.003,
  churnPrecision: 0.75,
  epochs: 8,
  l2: 1e-3,
};

export const POLARITIES = ['negative', 'neutral', 'positive'] as const;

/** sigmoid(a * logit(p) + b) per output: Platt scaling fitted on out-of-fold probabilities. */
export interface Calibration {
  a: number[];
  b: number[];
}

export interface LabelHead {
  labels: string[];
  model: LinearModel;
  calibration: Calibration;
  /**
   * Per label: weights of the logits of the second stage's inputs (stackInputCount: the whole
   * message's calibrated probability; with pieces, their max and mean; with words, the word
   * reader's probability), then a bias. Absent: the whole message's probability is used alone.
   */
  stack?: number[][];
  /** On the final probability. */
  thresholds: number[];
}

export interface Heads {
  version: number;
  embedder: string;
  dimensions: number;
  options: HeadsOptions;
  corpusHash: string;
  /** Standardisation of the feature row. */
  mean: number[];
  scale: number[];
  topics: LabelHead;
  intentions: LabelHead;
  churn: LabelHead;
  polarity: {
    model: LinearModel;
    /** Weight of the word reader's log-probabilities beside the embedding head's (0 without words). */
    wordWeight: number;
    /** Added to the blended log-probabilities before the class is picked (chosen on out-of-fold accuracy). */
    offsets: number[];
    /** Softmax temperature of the offset log-probabilities (chosen on out-of-fold log-loss). */
    temperature: number;
    /**
     * With options.priors: the softmax second stage over polarityStackRow (out-of-fold fitted);
     * its log-probabilities replace the blend, then the offsets and temperature apply.
     */
    stack?: LinearModel;
  };
  sentiment: {
    /** Mean sentiment of the corpus' negative, neutral and positive messages. */
    means: number[];
  };
  /** The word reader, trained on the whole corpus (present when options.stackWords). */
  words?: PackedWordReader;
  /** The learned sarcasm detector (present when options.learnedSarcasm and a sarcasm set was given). */
  sarcasm?: SarcasmDetector;
  /**
   * Out-of-fold figures on the training corpus, kept for the logs. Optimistic: calibration,
   * stacking and thresholds are fitted on the same out-of-fold rows they are scored on, over
   * INNER_REPEATS repeats. The honest figures are `npm run eval`'s (nested).
   */
  crossValidation: {
    folds: number;
    topicF1: number;
    intentionF1: number;
    polarityAccuracy: number;
    sentimentMae: number;
    churn: { precision: number; recall: number };
  };
}

export interface Prediction {
  sentiment: number;
  topics: string[];
  intentions: string[];
  /** The words and pairs that pushed the word reader's churn reading up, when churn was read (at most CHURN_WORDS). */
  churnWords: string[];
}

const CHURN_WORDS = 3;

/** How many inputs each label's second stage weighs, for these options. */
export const stackInputCount = (o: Pick<HeadsOptions, 'stackPieces' | 'stackWords'>) =>
  1 + (o.stackPieces ? 2 : 0) + (o.stackWords ? 1 : 0);

const MAX_LABELS = 3;
/** Weight of the lexicon score added to the expected sentiment (expectation mode only). */
const LEXICON_INTENSITY = 0.2;
export const OTHER_INTENTIONS = INTENTIONS.filter((l) => l !== 'churn');
const CHURN_INDEX = INTENTIONS.indexOf('churn');

export const standardise = (row: number[], s: { mean: number[]; scale: number[] }) => {
  const out = new Float64Array(row.length);
  for (let k = 0; k < row.length; k++) out[k] = (row[k] - s.mean[k]) * s.scale[k];
  return out;
};

export function polarityOf(sentiment: number): (typeof POLARITIES)[number] {
  return sentiment <= -0.2 ? 'negative' : sentiment >= 0.2 ? 'positive' : 'neutral';
}

export const calibrated = (c: Calibration, probs: number[]) => probs.map((p, o) => sigmoid(c.a[o] * logit(p) + c.b[o]));

/** The word reader's probabilities in the heads' label order. */
export interface WordScores {
  topics: number[];
  intentions: number[];
  churn: number[];
  polarity: number[];
}

export function wordScores(p: WordProbabilities): WordScores {
  return {
    topics: p.topics,
    intentions: OTHER_INTENTIONS.map((l) => p.intentions[INTENTIONS.indexOf(l)]),
    churn: [p.intentions[CHURN_INDEX]],
    polarity: p.polarity,
  };
}

/** One label's second-stage inputs (logits), in the order of LabelHead.stack. */
export function stackRow(
  o: Pick<HeadsOptions, 'stackPieces' | 'stackWords'>,
  whole: number,
  pieces: number[],
  word: number | undefined,
  /** The label's scope inputs (intent-scope.ts), with options.scope. */
  scope: number[] = [],
): number[] {
  const row = [logit(whole)];
  if (o.stackPieces) {
    const max = pieces.length ? Math.max(...pieces) : whole;
    const mean = pieces.length ? pieces.reduce((a, b) => a + b, 0) / pieces.length : whole;
    row.push(logit(max), logit(mean));
  }
  if (o.stackWords) row.push(logit(word ?? whole));
  // Per scope group (said, denied): the counts, then the readers' logits again when the words are
  // only denied, so that the fit can learn how far a denial discounts a confident reader (a
  // linear stack alone can only shift it by a constant, and "no need for a refund" is read as
  // refund with great confidence by both readers).
  const readers = row.slice();
  for (let g = 0; g + 1 < scope.length; g += 2) {
    const onlyDenied = scope[g] === 0 && scope[g + 1] > 0 ? 1 : 0;
    row.push(scope[g], scope[g + 1], onlyDenied * readers[0], onlyDenied * readers[readers.length - 1]);
  }
  return row;
}

/** A label's scope inputs under these options (none without options.scope). */
export const labelScope = (o: Pick<HeadsOptions, 'scope'>, label: string, counts: ScopeCounts | undefined) =>
  o.scope && counts ? scopeInputs(label, counts) : [];

export const stacked = (w: number[], row: number[]) =>
  sigmoid(row.reduce((sum, v, k) => sum + v * w[k], w[row.length]));

/** A label head's final probabilities: calibrated, then (stacked heads) weighed against the pieces' and the words'. */
function labelProbs(
  head: LabelHead,
  o: HeadsOptions,
  x: ArrayLike<number>,
  pieces: ArrayLike<number>[],
  words: number[] | undefined,
  scope: ScopeCounts | undefined,
): number[] {
  const whole = calibrated(head.calibration, predict(head.model, x));
  if (!head.stack) return whole;
  const per = pieces.map((xp) => calibrated(head.calibration, predict(head.model, xp)));
  return whole.map((p, k) =>
    stacked(
      head.stack![k],
      stackRow(
        o,
        p,
        per.map((q) => q[k]),
        words?.[k],
        labelScope(o, head.labels[k], scope),
      ),
    ),
  );
}

/** Keeps labels at or above their threshold (and allowed), the MAX_LABELS furthest above it. */
function pickLabels(head: LabelHead, probs: number[], allowed: (label: string) => boolean = () => true): string[] {
  return probs
    .map((p, o) => ({ label: head.labels[o], margin: p - head.thresholds[o] }))
    .filter((c) => c.margin >= 0 && allowed(c.label))
    .sort((a, b) => b.margin - a.margin)
    .slice(0, MAX_LABELS)
    .map((c) => c.label);
}

export type PolarityBlend = Pick<Heads['polarity'], 'wordWeight' | 'offsets' | 'temperature' | 'stack'>;

/** Inputs of polarity's second stage: each reader's log-probabilities, the lexicon priors, our own lexicon's score. */
export const polarityStackInputs = (o: Pick<HeadsOptions, 'stackWords'>) =>
  3 + (o.stackWords ? 6 : 0) + PRIOR_NAMES.length + 3 + (o.stackWords ? 4 : 2);

/** A log-probability kept above log(1e-4): one overconfident reader must not drown the others in the stack. */
const boundedLog = (p: number) => Math.max(Math.log(Math.max(p, 1e-9)), -9.2);

/** The lexicon part of a polarity stack row, from the message's normalised text. */
export function priorRow(normalised: string, clauseWords: number[] | undefined): number[] {
  const [praiseDenied, complaintDenied] = understatement(normalised);
  return [
    ...lexiconPriors(normalised),
    lexiconScore(normalised).score,
    // Understatement both ways (priors.ts): "can't fault it", "not exactly fast".
    complaintDenied,
    praiseDenied,
    // The word reader on the clause after the last "but"/"until"/"now" (the whole message without one).
    ...(clauseWords ? clauseWords.map(boundedLog) : []),
  ];
}

/** The word reader's polarity on the message's last clause (priors.ts lastClause); the message's own when it has none. */
export function clausePolarity(
  reader: Pick<WordReader, 'polarity' | 'topics' | 'intentions'>,
  normalised: string,
  whole: number[],
): number[] {
  const clause = lastClause(normalised);
  return clause === normalised ? whole : wordProbabilities(reader, wordFeatures(clause)).polarity;
}

export function polarityStackRow(embedding: number[], words: number[] | undefined, priors: number[]): number[] {
  const le = embedding.map(boundedLog);
  const lw = words ? words.map(boundedLog) : [];
  // Understatement against the readers: how far each leans positive, again, when praise is denied
  // ("never great", "not exactly fast") or a complaint is ("not awkward at all"). The sentence
  // embedding hears "great" either way; as products, the fit can learn to discount its lean only
  // there (a linear stack alone can only shift every reading by a constant).
  const flipped = priors[PRIOR_NAMES.length + 1] ?? 0;
  const deniedPraise = priors[PRIOR_NAMES.length + 2] ?? 0;
  const lean = (l: number[]) => l[2] - l[0];
  const readers = words ? [le, lw] : [le];
  return [...le, ...lw, ...priors, ...readers.flatMap((l) => [deniedPraise * lean(l), flipped * lean(l)])];
}

/**
 * Polarity's class probabilities: the stack's (or, without priors, the two readers'
 * log-probabilities blended), offset, tempered. `priors` is priorRow of the message.
 */
export function polarityProbs(
  pol: PolarityBlend,
  embedding: number[],
  words: number[] | undefined,
  priors?: number[],
): number[] {
  const base =
    pol.stack && priors
      ? predict(pol.stack, polarityStackRow(embedding, words, priors)).map((p) => Math.log(Math.max(p, 1e-9)))
      : embedding.map(
          (p, c) => Math.log(Math.max(p, 1e-9)) + (words ? pol.wordWeight * Math.log(Math.max(words[c], 1e-9)) : 0),
        );
  return softmaxOf(
    base.map((v, c) => v + pol.offsets[c]),
    pol.temperature,
  );
}

/**
 * Polarity's probabilities after a composition verdict (composition.ts): when the stack reads the
 * opposite sign, halfway toward the verdict's class, which then holds at least half the mass (the
 * class), while the expectation keeps what the readers heard (the value's size). A failure told
 * plainly (a plain failure, a mismatch) also moves a neutral reading: the labelling rule makes a
 * failure the customer suffers a mild complaint however calmly it is told, and calm words are
 * exactly what leaves the stack at neutral ("the air conditioning in our room did not work"). So
 * does advice to others against the company ("don't bother", "steer clear"): it is never neutral.
 * And so does a problem still open that the writer asks about politely ("our luggage has not yet
 * been returned. Regards"): the corpus labels waiting a complaint, however calm (dev24).
 */
const FACTUAL_RULES: readonly Verdict['rule'][] = ['plain failure', 'mismatch', 'warning', 'open problem'];
export function composePolarity(p: number[], verdict: Verdict | undefined): number[] {
  if (!verdict) return p;
  const against = verdict.sign > 0 ? 0 : 2;
  const read = p.indexOf(Math.max(...p));
  if (read !== against && !(read === 1 && FACTUAL_RULES.includes(verdict.rule))) return p;
  const target = verdict.sign > 0 ? 2 : 0;
  return p.map((v, c) => (v + (c === target ? 1 : 0)) / 2);
}

export function softmaxOf(z: number[], temperature = 1): number[] {
  const max = Math.max(...z);
  const e = z.map((v) => Math.exp((v - max) / temperature));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

/** Σ P(class) × the class's mean sentiment on the corpus. */
export const expectedSentiment = (p: number[], means: number[]) => p.reduce((sum, prob, c) => sum + prob * means[c], 0);

/** The polarity class the heads answer, from polarity's probabilities. */
export function polarityClass(heads: Pick<Heads, 'options' | 'sentiment'>, p: number[]): (typeof POLARITIES)[number] {
  return heads.options.sentimentFromExpectation
    ? polarityOf(expectedSentiment(p, heads.sentiment.means))
    : POLARITIES[p.indexOf(Math.max(...p))];
}

/**
 * How far into its class a weak decision goes: by its margin (the class's probability over the
 * runner-up's), up to this beyond the class's edge (±0.2). v3 to v4 put every weak decision at
 * exactly ±0.20, a lump of identical scores that said nothing about how weak each was.
 */
const WEAK_SPAN = 0.1;

/**
 * The sentiment value. The class is polarity's decision (the argmax; the expectation's band
 * measured 2.9 points of polarity worse, docs/analysis.md); the value is the expected sentiment
 * (Σ P(class) × the class's mean on the corpus) plus the lexicon's intensity (which sees "very",
 * "!!!"), kept as it is when it lies inside that class. When it lies outside (a weak decision: the
 * argmax says positive, the expectation is below 0.2), it is not snapped to the edge: it goes
 * into the class by the decision's margin, so a stronger decision reads as a larger value and a
 * weaker one stays near the edge.
 */
export function sentimentValue(heads: Pick<Heads, 'options' | 'sentiment'>, p: number[], text: string): number {
  const cls = polarityClass(heads, p);
  const raw = expectedSentiment(p, heads.sentiment.means) + LEXICON_INTENSITY * lexiconScore(text).score;
  const v = Math.max(-1, Math.min(1, raw));
  const c = POLARITIES.indexOf(cls);
  const margin = Math.max(0, Math.min(1, p[c] - Math.max(...p.filter((_, k) => k !== c))));
  let inClass: number;
  if (cls === 'neutral')
    // A sure neutral with a lopsided expectation goes toward 0, not to the edge.
    inClass = Math.abs(v) < 0.2 ? Math.max(-0.19, Math.min(0.19, v)) : Math.sign(v) * (0.19 - WEAK_SPAN * margin);
  else if (cls === 'negative') inClass = v <= -0.2 ? v : -(0.2 + WEAK_SPAN * margin);
  else inClass = v >= 0.2 ? v : 0.2 + WEAK_SPAN * margin;
  return Math.round(inClass * 1000) / 1000 || 0;
}

/** The unpacked word reader of stored heads: unpacked once per heads object, then shared. */
const readers = new WeakMap<Heads, ReturnType<typeof unpackWordReader>>();
export function wordReaderOf(heads: Heads) {
  if (!heads.words) return undefined;
  let r = readers.get(heads);
  if (!r) readers.set(heads, (r = unpackWordReader(heads.words)));
  return r;
}

/** The heads' reading of one message, from its encoding (features.ts). */
export function applyHeads(heads: Heads, enc: Encoded, raw: string, row?: SparseRow): Prediction {
  const o = heads.options;
  const text = normalizeText(raw);
  const x = standardise(featureRow(enc.vector, text), heads);
  const pieces = o.stackPieces ? pieceRows(enc, heads) : [];
  const reader = wordReaderOf(heads);
  row ??= wordFeatures(text);
  const words = reader ? wordScores(wordProbabilities(reader, row)) : undefined;
  const priors = heads.polarity.stack
    ? priorRow(text, reader && words ? clausePolarity(reader, text, words.polarity) : undefined)
    : undefined;
  const stacked = polarityProbs(heads.polarity, predict(heads.polarity.model, x), words?.polarity, priors);
  // The word reader's lean on a part of the message (composition.ts weighs a contrast's parts).
  const readerLean = reader
    ? (part: string) => {
        const p = wordProbabilities(reader, wordFeatures(part)).polarity;
        return p[2] - p[0];
      }
    : undefined;
  const lexPriors = () => priors?.slice(0, PRIOR_NAMES.length) ?? lexiconPriors(text);
  let verdict = o.composition ? compositionVerdict(text, readerLean) : undefined;
  // Praise with no mark of sarcasm (composition.ts clearPraise) may still be sarcasm: the detector,
  // which judges messages the stack reads positive, has the last word on it.
  if ((verdict?.rule === 'clear praise' || verdict?.rule === 'resolved story') && sarcastic(heads, x, lexPriors, row))
    verdict = undefined;
  const polarity = composePolarity(stacked, verdict ?? learnedSarcasm(heads, stacked, x, lexPriors, row));
  const positive = polarityClass(heads, polarity) === 'positive';
  const scope = o.scope ? scopeCounts(text) : undefined;
  // The veto reads more forms of denial than the heads were trained with (intent-scope.ts `wide`),
  // counted only for a message that has a label to veto (most messages have none).
  let wideScope: ScopeCounts | undefined;
  const vetoed = (label: string) =>
    o.scope && o.denialVeto && deniedOnly(label, (wideScope ??= scopeCounts(text, { wide: true })));
  const stays = () => o.scope && o.denialVeto && saysStaying(text, (wideScope ??= scopeCounts(text, { wide: true })));
  const cancelsThing = () =>
    o.scope && o.denialVeto && cancelsOnlyThings(text, (wideScope ??= scopeCounts(text, { wide: true })));
  const topics = pickLabels(heads.topics, labelProbs(heads.topics, o, x, pieces, words?.topics, scope));
  const intentions = pickLabels(
    heads.intentions,
    labelProbs(heads.intentions, o, x, pieces, words?.intentions, scope),
    (label) => !(label === 'recommend' && o.recommendNeedsPositive && !positive) && !vetoed(label),
  );
  // A plain statement of leaving in any trade's words (intent-scope.ts saysLeaving) is churn even
  // when the heads, which learned software customers' words, did not hear it.
  const churn =
    (pickLabels(heads.churn, labelProbs(heads.churn, o, x, pieces, words?.churn, scope)).length > 0 ||
      (o.scope && saysLeaving(text, positive))) &&
    !(vetoed('churn') || stays() || cancelsThing());
  if (churn) intentions.unshift('churn');
  // A plain statement of an upgrade in any trade's tiers (upgrade-statement.ts), unless denied.
  if (o.scope && !intentions.includes('upgrade') && saysUpgrading(text) && !vetoed('upgrade'))
    intentions.push('upgrade');
  return {
    sentiment: sentimentValue(heads, polarity, text),
    topics,
    intentions: intentions.slice(0, MAX_LABELS),
    churnWords: churn && reader ? drivingWords(reader.intentions, CHURN_INDEX, text, CHURN_WORDS) : [],
  };
}

/** The learned detector's verdict on a message the stack reads positive (sarcasm-detector.ts). */
function learnedSarcasm(
  heads: Heads,
  stacked: number[],
  x: ArrayLike<number>,
  /** The lexicon priors: the stack's when it computed them (priorRow begins with them). */
  priors: () => number[],
  row: SparseRow,
): Verdict | undefined {
  if (stacked.indexOf(Math.max(...stacked)) !== 2) return undefined;
  return sarcastic(heads, x, priors, row) ? { sign: -1, rule: 'learned sarcasm' } : undefined;
}

/** Whether the learned detector, when the heads have one and use it, finds a message sarcastic. */
function sarcastic(heads: Heads, x: ArrayLike<number>, priors: () => number[], row: SparseRow): boolean {
  if (!heads.options.learnedSarcasm || !heads.sarcasm) return false;
  return sarcasmProbability(heads.sarcasm, x, priors(), row) >= heads.sarcasm.threshold;
}

/** The feature rows of a message's pieces, each read as a message of its own. */
export function pieceRows(enc: Encoded, std: { mean: number[]; scale: number[] }): Float64Array[] {
  return enc.pieces.map((vector, k) => standardise(featureRow(vector, enc.pieceTexts[k]), std));
}
