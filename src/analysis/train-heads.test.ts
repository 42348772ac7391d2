import { describe, expect, it } from 'vitest';
import type { SarcasmExample } from './corpus.js';
import { featureRow } from './features.js';
import { sarcasmSetPolarityRows } from './train-heads.js';

describe('the sarcasm set as polarity examples (sarcasmSetPolarity)', () => {
  const line = (label: SarcasmExample['label'], text: string): SarcasmExample => ({ label, text, writer: 'w' });
  const examples = [
    line('sarcastic', 'Oh great, another outage. Love it.'),
    line('literal_negative', 'The parcel never arrived.'),
    line('sincere_positive', 'Wow, the fitter was early and tidy!'),
    line('sincere_positive_with_problem', 'The app crashed once, but support fixed it in minutes. Great.'),
    line('neutral', 'What time do you open on Sundays?'),
  ];
  const vector = [0.5, -0.25, 1, 0];
  const width = featureRow(vector, 'x').length;
  const rows = sarcasmSetPolarityRows(
    { examples, encoded: examples.map(() => ({ vector, pieces: [], pieceTexts: [] })) },
    { mean: new Array<number>(width).fill(0), scale: new Array<number>(width).fill(1) },
  );

  it('reads sarcasm and complaints as negative, sincere praise as positive, neutral lines as neutral', () => {
    expect(rows.words.classes).toEqual(['negative', 'negative', 'positive', 'neutral']);
    expect(rows.polarity).toEqual([
      [1, 0, 0],
      [1, 0, 0],
      [0, 0, 1],
      [0, 1, 0],
    ]);
  });

  it('leaves out praise with a problem told, which taught the readers to read polite complaints as praise', () => {
    expect(rows.x).toHaveLength(4);
    expect(rows.words.rows).toHaveLength(4);
  });

  it('gives each kept line the feature row heads training gives a corpus line', () => {
    expect([...rows.x[2]]).toEqual(featureRow(vector, examples[2].text));
  });
});
