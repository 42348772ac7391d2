import { polarityOf } from '../heads.js';

/**
 * A capability of the CheckList kind (Ribeiro et al., ACL 2020):
 * - MFT (minimum functionality): each generated text must be read a certain way;
 * - INV (invariance): a label-preserving edit of a text must not change its reading;
 * - DIR (directional): an edit must move the reading one way, or at least not the other.
 */
export type Kind = 'MFT' | 'INV' | 'DIR';

/** What the probe reads of an analysis: its sentiment value and its intentions. */
export interface Reading {
  sentiment: number;
  intentions: string[];
}

/** -1 negative, 0 neutral, +1 positive: which way a base text is meant to read. */
export type Sign = -1 | 0 | 1;

/** A template with its slots filled and framed in a register (generator.ts). */
export interface Filled {
  template: string;
  slots: Record<string, string>;
  text: string;
  sign: Sign;
  /** The same case again, in the same register, with these slots and its core sentence edited. */
  make(slots: Record<string, string>, edit?: (core: string) => string): string;
}

/** Base templates of a pair capability, with the way they are meant to read. */
export interface Source {
  templates: readonly string[];
  sign: Sign;
}

interface Common {
  name: string;
  /** What a failing reading is, as the report says it. */
  failure: string;
}

export interface MftCapability extends Common {
  kind: 'MFT';
  templates: readonly string[];
  fails(r: Reading): boolean;
  /** A second rate reported beside the failure rate (sarcasm: how often it is not read negative). */
  also?: { failure: string; fails(r: Reading): boolean };
}

export interface PairCapability extends Common {
  kind: 'INV' | 'DIR';
  sources: readonly Source[];
  /** The edited text of a base, or undefined when the edit does not apply to it (another is drawn). */
  variant(c: Filled, random: () => number): string | undefined;
  fails(base: Reading, variant: Reading, sign: Sign): boolean;
  /** A second rate reported beside the failure rate (intensity: how often the class itself moved). */
  also?: { failure: string; fails(base: Reading, variant: Reading, sign: Sign): boolean };
}

export type Capability = MftCapability | PairCapability;

/** How far the sentiment value may move against the expected direction before a DIR test fails. */
export const TOLERANCE = 0.1;

const RANK = { negative: -1, neutral: 0, positive: 1 } as const;
export const polarity = (r: Reading) => polarityOf(r.sentiment);
export const rank = (r: Reading) => RANK[polarity(r)];
export const isChurn = (r: Reading) => r.intentions.includes('churn');

/** DIR: the class moved against `sign`, or the value by more than TOLERANCE. */
export const movedAgainst = (base: Reading, variant: Reading, sign: number) =>
  sign * (rank(variant) - rank(base)) < 0 || sign * (variant.sentiment - base.sentiment) < -TOLERANCE;

/** DIR: the class alone moved against `sign` (a "flip"). */
export const classAgainst = (base: Reading, variant: Reading, sign: number) => sign * (rank(variant) - rank(base)) < 0;

/** INV: the polarity class or the churn flag changed. */
export const changed = (base: Reading, variant: Reading) =>
  polarity(base) !== polarity(variant) || isChurn(base) !== isChurn(variant);
