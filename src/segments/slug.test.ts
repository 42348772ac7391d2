import { describe, it, expect } from 'vitest';
import { isValidSlug, slugify } from './slug.js';

describe('slugify', () => {
  it.each([
    ['Price-sensitive Users (EU)', 'price-sensitive-users-eu'],
    ['  At   risk!!  ', 'at-risk'],
    ['churn_risk_high', 'churn_risk_high'],
    ['Café Größe', 'cafe-gro-e'], // accents stripped; ß has no ASCII decomposition, so it separates
    ['2024 Q1', '2024-q1'],
    ['---', 'segment'],
    ['', 'segment'],
    ['日本語', 'segment'],
  ])('%j → %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it('cuts at 64 characters without a trailing dash', () => {
    const slug = slugify(`${'a'.repeat(63)} b`);
    expect(slug).toBe('a'.repeat(63));
    expect(slugify('x'.repeat(100))).toHaveLength(64);
  });

  it('always produces a valid slug', () => {
    for (const name of ['A b', '!!!', 'ÀÉÎ', 'x'.repeat(200), '-_-']) expect(isValidSlug(slugify(name))).toBe(true);
  });
});

describe('isValidSlug', () => {
  it.each([
    ['churn-risk', true],
    ['a', true],
    ['a_b-9', true],
    ['x'.repeat(64), true],
    ['x'.repeat(65), false],
    ['', false],
    ['Churn', false],
    ['a b', false],
    ['a/b', false],
    ['é', false],
  ])('%j → %s', (s, ok) => {
    expect(isValidSlug(s)).toBe(ok);
  });
});
