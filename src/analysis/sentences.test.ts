import { describe, expect, it } from 'vitest';
import { MAX_PIECES, sentencesOf } from './sentences.js';

describe('sentence pieces', () => {
  it('reads a short message whole', () => {
    expect(sentencesOf('Love it. Too pricey though.')).toEqual([]);
  });

  it('splits a long message at sentence ends and line breaks, joining pieces under six words', () => {
    const text =
      'The import finished without errors yesterday evening. Ok. But none of the contacts show up in the list\nIf this is not fixed by Friday we will cancel the contract!';
    expect(sentencesOf(text)).toEqual([
      'The import finished without errors yesterday evening. Ok.',
      'But none of the contacts show up in the list',
      'If this is not fixed by Friday we will cancel the contract!',
    ]);
  });

  it(`groups a message of many sentences into at most ${MAX_PIECES} runs that cover it in order`, () => {
    const sentences = Array.from({ length: 14 }, (_, i) => `This is sentence number ${i} of the ticket.`);
    const pieces = sentencesOf(sentences.join(' '));
    expect(pieces).toHaveLength(MAX_PIECES);
    expect(pieces.join(' ')).toBe(sentences.join(' '));
  });
});
