import { describe, expect, it } from 'vitest';
import { keepBeating } from './keep-beating.js';

describe('keepBeating', () => {
  it('beats while the work is pending and stops when it settles', async () => {
    let beats = 0;
    const result = await keepBeating(() => beats++, 10, new Promise((r) => setTimeout(() => r('done'), 120)));
    expect(result).toBe('done');
    expect(beats).toBeGreaterThanOrEqual(5);
    const after = beats;
    await new Promise((r) => setTimeout(r, 50));
    expect(beats).toBe(after);
  });

  it('stops beating when the work fails', async () => {
    let beats = 0;
    await expect(keepBeating(() => beats++, 10, Promise.reject(new Error('embedder down')))).rejects.toThrow(
      'embedder down',
    );
    await new Promise((r) => setTimeout(r, 40));
    expect(beats).toBe(0);
  });
});
