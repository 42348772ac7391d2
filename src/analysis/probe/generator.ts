import { seededRandom, shuffled } from '../linear.js';
import type { Capability, Sign, Source } from './capability.js';
import { CAPABILITIES } from './capabilities.js';
import { fillCase } from './fill.js';

/**
 * Turns the capabilities' templates into cases: each case draws its template in turn (a seeded
 * shuffled cycle, so every template is used about equally), fills its slots at random from the
 * vocabulary, and frames it in a register (a chat line, an email sentence, a review, a ticket, a
 * short post). The same seed gives the same cases; a text is never drawn twice in a capability.
 */

export const DEFAULT_SEED = 45;
export const DEFAULT_PER_CAPABILITY = 60;

export interface MftCase {
  text: string;
  template: string;
}
export interface PairCase {
  base: string;
  variant: string;
  sign: Sign;
  template: string;
}
export type Cases =
  | { capability: Extract<Capability, { kind: 'MFT' }>; cases: MftCase[] }
  | { capability: Extract<Capability, { kind: 'INV' | 'DIR' }>; cases: PairCase[] };

/** A stable number per capability name, so adding a capability does not change the others' cases. */
const hash = (s: string) => [...s].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7);

export function generateCases(
  capability: Capability,
  seed = DEFAULT_SEED,
  perCapability = DEFAULT_PER_CAPABILITY,
): Cases {
  const random = seededRandom(seed ^ hash(capability.name));
  // Sources take turns (a pair capability's praise, complaints, questions, churn get equal shares),
  // and each source's templates are drawn in a shuffled cycle.
  const sources: Source[] =
    capability.kind === 'MFT' ? [{ templates: capability.templates, sign: 0 }] : [...capability.sources];
  const orders = sources.map((s) => shuffled(s.templates.length, random));
  const draw = (k: number) => {
    const s = k % sources.length;
    const t = Math.floor(k / sources.length) % sources[s].templates.length;
    return { template: sources[s].templates[orders[s][t]], sign: sources[s].sign };
  };
  const seen = new Set<string>();
  const mft: MftCase[] = [];
  const pairs: PairCase[] = [];
  for (let k = 0; seen.size < perCapability && k < perCapability * 50; k++) {
    const { template, sign } = draw(k);
    const c = fillCase(template, sign, random);
    if (capability.kind === 'MFT') {
      if (!seen.has(c.text)) mft.push({ text: c.text, template });
      seen.add(c.text);
      continue;
    }
    const variant = capability.variant(c, random);
    const key = `${c.text}\u0000${variant}`;
    if (variant === undefined || variant === c.text || seen.has(key)) continue;
    seen.add(key);
    pairs.push({ base: c.text, variant, sign, template });
  }
  return capability.kind === 'MFT' ? { capability, cases: mft } : { capability, cases: pairs };
}

/** Every capability's cases. */
export function generateProbe(seed = DEFAULT_SEED, perCapability = DEFAULT_PER_CAPABILITY): Cases[] {
  return CAPABILITIES.map((c) => generateCases(c, seed, perCapability));
}
