import { describe, expect, it } from 'vitest';
import type { LabelledText, SarcasmExample } from './corpus.js';
import { courtesyEnvelopes } from './courtesy-envelope.js';
import { featureRow } from './features.js';
import { envelopeRows, sarcasmRows, sarcasmSetPolarityRows } from './train-heads.js';

/** Sarcasm-set lines of one writer, each encoded as the same vector, and an identity standardisation. */
const line = (label: SarcasmExample['label'], text: string): SarcasmExample => ({ label, text, writer: 'w' });
const vector = [0.5, -0.25, 1, 0];
const encodedAll = (examples: SarcasmExample[]) => examples.map(() => ({ vector, pieces: [], pieceTexts: [] }));
const width = featureRow(vector, 'x').length;
const identity = { mean: new Array<number>(width).fill(0), scale: new Array<number>(width).fill(1) };

describe('the sarcasm set as polarity examples (sarcasmSetPolarity)', () => {
  const examples = [
    line('sarcastic', 'Oh great, another outage. Love it.'),
    line('literal_negative', 'The parcel never arrived.'),
    line('sincere_positive', 'Wow, the fitter was early and tidy!'),
    line('sincere_positive_with_problem', 'The app crashed once, but support fixed it in minutes. Great.'),
    line('neutral', 'What time do you open on Sundays?'),
    line('polite_complaint', 'Hi there, I ordered three lamps and two came. Could you look into it? Thanks!'),
  ];
  const rows = sarcasmSetPolarityRows({ examples, encoded: encodedAll(examples) }, identity);

  it('reads sarcasm and complaints, polite ones too, as negative, sincere praise as positive, neutral lines as neutral', () => {
    expect(rows.words.classes).toEqual(['negative', 'negative', 'positive', 'positive', 'neutral', 'negative']);
    expect(rows.polarity).toEqual([
      [1, 0, 0],
      [1, 0, 0],
      [0, 0, 1],
      [0, 0, 1],
      [0, 1, 0],
      [1, 0, 0],
    ]);
  });

  it('keeps praise with a problem put right (heads v25: polite complaints stand on the other side of it)', () => {
    expect(rows.x).toHaveLength(6);
    expect(rows.words.rows).toHaveLength(6);
  });

  it('gives each kept line the feature row heads training gives a corpus line', () => {
    expect([...rows.x[2]]).toEqual(featureRow(vector, examples[2].text));
  });
});

describe("the learned detector's examples (sarcasmRows)", () => {
  const examples = [
    line('sarcastic', 'Oh great, another outage. Love it.'),
    line('polite_complaint', 'Hi there, I ordered three lamps and two came. Could you look into it? Thanks!'),
    line('sincere_positive', 'Wow, the fitter was early and tidy!'),
    line('sincere_positive_with_problem', 'The app crashed once, but support fixed it in minutes. Great.'),
    line('neutral', 'Hello, could you tell me if the lamp comes in green? Many thanks!'),
    line('literal_negative', 'The parcel never arrived.'),
  ];
  // No corpus lines: only the set's own.
  const rows = sarcasmRows({ examples, encoded: encodedAll(examples), sarcasticIds: new Set() }, [], [], [], identity);

  it('learns sarcasm and polite complaints as complaints read as praise, against sincere praise and polite requests', () => {
    expect(rows.map((r) => r.sarcastic)).toEqual([true, true, false, false, false]);
  });

  it('leaves out literal complaints, which the stack never reads positive', () => {
    expect(rows).toHaveLength(5);
  });

  it('leaves out a writer of plain praise and plain complaints: only writers of complaints in disguise teach it', () => {
    const calm = [
      { ...line('sincere_positive', 'Prescription ready on time, no fuss.'), writer: 'calm' },
      { ...line('literal_negative', 'Prescription not ready, again.'), writer: 'calm' },
      { ...line('neutral', 'Can I collect it on Thursday?'), writer: 'calm' },
    ];
    const both = [...examples, ...calm];
    const withCalm = sarcasmRows(
      { examples: both, encoded: encodedAll(both), sarcasticIds: new Set() },
      [],
      [],
      [],
      identity,
    );
    expect(withCalm.map((r) => r.sarcastic)).toEqual([true, true, false, false, false]);
    // Its lines still teach the readers' polarity.
    expect(sarcasmSetPolarityRows({ examples: calm, encoded: encodedAll(calm) }, identity).words.classes).toEqual([
      'positive',
      'negative',
      'neutral',
    ]);
  });
});

describe('courtesy envelopes as polarity examples (courtesyEnvelopes)', () => {
  const item = (id: string, text: string, sentiment: number, register?: string): LabelledText => ({
    id,
    text,
    sentiment,
    topics: [],
    intentions: [],
    register,
  });
  const items = [
    item('a', 'My order has not arrived after three weeks.', -0.5),
    item('b', 'The new dashboard is lovely.', 0.6),
    item('c', 'Where do I change my address?', 0),
    item('d', 'Hi, the invoice is wrong again.', -0.4),
    item('e', 'La livraison est en retard.', -0.4, 'foreign'),
  ];
  const lines = courtesyEnvelopes(items);

  it('wraps each English line without an envelope of its own once, the line inside unchanged', () => {
    expect(lines.map((l) => l.parent)).toEqual([0, 1, 2]);
    lines.forEach((l) => {
      expect(l.text).toContain(items[l.parent].text);
      expect(l.text).not.toBe(items[l.parent].text);
    });
  });

  it('wraps a line the same way every time (every fold and every training)', () => {
    expect(courtesyEnvelopes(items)).toEqual(lines);
  });

  it('gives each copy its line polarity, and only the copies of the lines a fold trains on', () => {
    const vector = [0.5, -0.25, 1, 0];
    const width = featureRow(vector, 'x').length;
    const rowsFor = envelopeRows(
      {
        parent: lines.map((l) => l.parent),
        texts: lines.map((l) => l.text),
        encoded: lines.map(() => ({ vector, pieces: [], pieceTexts: [] })),
      },
      items,
      { mean: new Array<number>(width).fill(0), scale: new Array<number>(width).fill(1) },
    );
    expect(rowsFor(() => true).words.classes).toEqual(['negative', 'positive', 'neutral']);
    const fold = rowsFor((p) => p !== 1);
    expect(fold.words.classes).toEqual(['negative', 'neutral']);
    expect(fold.polarity).toEqual([
      [1, 0, 0],
      [0, 1, 0],
    ]);
    expect(fold.x).toHaveLength(2);
  });
});
