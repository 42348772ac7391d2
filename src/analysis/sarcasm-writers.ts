import type { LabelledText, SarcasmExample } from './corpus.js';
import { featureRow, type Encoded } from './features.js';
import { applyHeads, POLARITIES, polarityOf, standardise, type Heads } from './heads.js';
import { normalizeText } from './normalize.js';
import { trainSarcasmDetector } from './sarcasm-detector.js';
import {
  envelopeRows,
  fitPolarityHead,
  joinExtra,
  LABEL_OPTIONS,
  sarcasmRows,
  sarcasmSetPolarityRows,
  type PolarityExtra,
  type TrainingEnvelopes,
} from './train-heads.js';
import { wordFeatures, type SparseRow } from './word-features.js';
import { packWordPolarity, trainWordPolarity } from './word-reader.js';

/** One writer's lines, read by heads whose detector never saw that writer. */
export interface WriterFigures {
  writer: string;
  /** The detector's threshold these figures were read at. */
  threshold: number;
  sarcastic: number;
  /** Sarcastic lines read positive: without the detector, and with the detector of the other writers. */
  sarcasticPositiveBefore: number;
  sarcasticPositiveAfter: number;
  sincere: number;
  /** Sincere praise (with a problem or not) read other than positive, before and after. */
  sincereMissedBefore: number;
  sincereMissedAfter: number;
  /** Polite complaints (a problem still open, told with courtesy) read positive, before and after. */
  polite: number;
  politePositiveBefore: number;
  politePositiveAfter: number;
  /** Neutral lines (polite requests, plain questions) read negative, before and after. */
  neutral: number;
  neutralNegativeBefore: number;
  neutralNegativeAfter: number;
}

/**
 * Leave-one-writer-out: each file of the sarcasm set is one writer; the detector is trained on the
 * other writers and the corpus (as heads training does), and the writer's sarcastic and sincere
 * lines are read by the given heads with it and without it. When the heads' readers learned
 * polarity from the sarcasm set too (sarcasmSetPolarity), their polarity is trained again without the
 * writer, so neither the detector nor the readers saw the lines they are judged on. The sarcasm set's writers never
 * shared templates or a word list, so this is the figure for a writer the detector has not met
 * (docs/analysis.md). `npm run eval` prints it; an integration test asserts one writer's.
 */
export async function sarcasmByWriter(input: {
  heads: Heads;
  examples: SarcasmExample[];
  encoded: Encoded[];
  items: LabelledText[];
  itemsEncoded: Encoded[];
  sarcasticIds: Set<string>;
  writers?: string[];
  /**
   * The detector's thresholds to read each writer at (default: the trained one, SARCASM_THRESHOLD):
   * one WriterFigures a writer and threshold, in this order, so a sweep trains each writer's
   * detector once.
   */
  thresholds?: number[];
  /** The items' courtesy envelopes, when the heads learned from them (courtesyEnvelopes). */
  envelopes?: TrainingEnvelopes;
}): Promise<WriterFigures[]> {
  const { heads } = input;
  const normalised = input.items.map((it) => normalizeText(it.text));
  const x = input.itemsEncoded.map((e, i) => standardise(featureRow(e.vector, normalised[i]), heads));
  const writers = input.writers ?? [...new Set(input.examples.map((ex) => ex.writer))];
  const wordRows = heads.options.sarcasmSetPolarity ? input.items.map((it) => wordFeatures(it.text)) : [];
  const gold = input.items.map((it) => POLARITIES.map((p) => (polarityOf(it.sentiment) === p ? 1 : 0)));
  const envelopes =
    heads.options.courtesyEnvelopes && input.envelopes
      ? envelopeRows(input.envelopes, input.items, heads)(() => true)
      : undefined;
  const out: WriterFigures[] = [];
  for (const writer of writers) {
    const others = input.examples.map((ex, i) => ({ ex, enc: input.encoded[i] })).filter((e) => e.ex.writer !== writer);
    // When both readers' polarity learned from the sarcasm set (sarcasmSetPolarity), they are
    // trained again without this writer, as the final heads train them; the second stage stays.
    const base = heads.options.sarcasmSetPolarity
      ? await withoutWriter(
          heads,
          input.items,
          x,
          wordRows,
          gold,
          {
            examples: others.map((e) => e.ex),
            encoded: others.map((e) => e.enc),
          },
          envelopes,
        )
      : heads;
    const without = { ...base, options: { ...base.options, learnedSarcasm: false } };
    const detector = await trainSarcasmDetector(
      sarcasmRows(
        {
          examples: others.map((e) => e.ex),
          encoded: others.map((e) => e.enc),
          sarcasticIds: input.sarcasticIds,
        },
        input.items,
        x,
        normalised,
        heads,
      ),
      1,
    );
    // The writer's lines read without the detector: once, whatever the thresholds.
    const read = (h: Heads, i: number) => polarityOf(applyHeads(h, input.encoded[i], input.examples[i].text).sentiment);
    const before = new Map<number, string>();
    input.examples.forEach((ex, i) => {
      if (ex.writer === writer) before.set(i, read(without, i));
    });
    for (const threshold of input.thresholds ?? [detector.threshold]) {
      const withDetector = {
        ...base,
        options: { ...base.options, learnedSarcasm: true },
        sarcasm: { ...detector, threshold },
      };
      const f: WriterFigures = {
        writer,
        threshold,
        sarcastic: 0,
        sarcasticPositiveBefore: 0,
        sarcasticPositiveAfter: 0,
        sincere: 0,
        sincereMissedBefore: 0,
        sincereMissedAfter: 0,
        polite: 0,
        politePositiveBefore: 0,
        politePositiveAfter: 0,
        neutral: 0,
        neutralNegativeBefore: 0,
        neutralNegativeAfter: 0,
      };
      before.forEach((readBefore, i) => {
        const ex = input.examples[i];
        const after = read(withDetector, i);
        if (ex.label === 'sarcastic') {
          f.sarcastic++;
          if (readBefore === 'positive') f.sarcasticPositiveBefore++;
          if (after === 'positive') f.sarcasticPositiveAfter++;
        } else if (ex.label === 'polite_complaint') {
          f.polite++;
          if (readBefore === 'positive') f.politePositiveBefore++;
          if (after === 'positive') f.politePositiveAfter++;
        } else if (ex.label.startsWith('sincere')) {
          f.sincere++;
          if (readBefore !== 'positive') f.sincereMissedBefore++;
          if (after !== 'positive') f.sincereMissedAfter++;
        } else if (ex.label === 'neutral') {
          f.neutral++;
          if (readBefore === 'negative') f.neutralNegativeBefore++;
          if (after === 'negative') f.neutralNegativeAfter++;
        }
      });
      out.push(f);
    }
  }
  return out;
}

/** The heads with both readers' polarity trained on the corpus and the given sarcasm lines only. */
async function withoutWriter(
  heads: Heads,
  items: LabelledText[],
  x: Float64Array[],
  wordRows: SparseRow[],
  gold: number[][],
  others: { examples: SarcasmExample[]; encoded: Encoded[] },
  envelopes: PolarityExtra | undefined,
): Promise<Heads> {
  const extra = joinExtra(sarcasmSetPolarityRows(others, heads), envelopes)!;
  const model = await fitPolarityHead(x, gold, heads.options, LABEL_OPTIONS.ensemble, extra);
  const words = heads.words
    ? { ...heads.words, polarity: packWordPolarity(await trainWordPolarity(items, wordRows, extra.words)) }
    : undefined;
  return { ...heads, polarity: { ...heads.polarity, model }, ...(words ? { words } : {}) };
}
