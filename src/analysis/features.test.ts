import { describe, expect, it } from 'vitest';
import type { Embedder } from './embedder.js';
import { encodeTexts } from './features.js';
import { sentencesOf } from './sentences.js';

/** A stand-in embedder: a fixed 3-d vector per text, and a record of its calls. */
function recording() {
  const calls: string[][] = [];
  const embedder: Embedder = {
    name: 'test',
    dimensions: 3,
    embed: async (texts) => (calls.push(texts), texts.map((t) => [t.length, 1, t.split(' ').length])),
  };
  return { embedder, calls };
}

describe('encodeTexts', () => {
  it('embeds short messages whole and long ones by sentence in one call; a long vector is its pieces’ normalised mean', async () => {
    const long =
      'We have used the planner for two years and the team likes it. The new pricing is another story though. Our contract ends in March and we will not renew it.';
    const pieces = sentencesOf(long);
    expect(pieces.length).toBe(3);
    const { embedder, calls } = recording();
    const [a, b, c] = await encodeTexts(embedder, ['short one', long, 'another short'], undefined, { pieces: true });
    expect(calls).toEqual([['short one', 'another short', ...pieces]]);
    expect(a).toEqual({ vector: [9, 1, 2], pieces: [], pieceTexts: [] });
    expect(c.vector).toEqual([13, 1, 2]);
    expect(b.pieceTexts).toEqual(pieces);
    const sum = [0, 1, 2].map((k) => b.pieces.reduce((s, p) => s + p[k], 0));
    const norm = Math.hypot(...sum);
    expect(b.vector.map((x) => x.toFixed(9))).toEqual(sum.map((x) => (x / norm).toFixed(9)));
  });
});
