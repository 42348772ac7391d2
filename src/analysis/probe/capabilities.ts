import {
  changed,
  isChurn,
  classAgainst,
  movedAgainst,
  polarity,
  rank,
  type Capability,
  type MftCapability,
  type PairCapability,
  type Reading,
  type Source,
} from './capability.js';
import * as p from './perturb.js';
import * as s from './templates-sentiment.js';
import * as i from './templates-intent.js';
import * as t from './templates-tone.js';

/** The probe's capabilities, in the order the report lists them. */

const mft = (
  name: string,
  templates: readonly string[],
  failure: string,
  fails: (r: Reading) => boolean,
  also?: MftCapability['also'],
): MftCapability => ({ kind: 'MFT', name, templates, failure, fails, also });

const notPositive = (r: Reading) => polarity(r) !== 'positive';
const notNegative = (r: Reading) => polarity(r) !== 'negative';
const readPositive = (r: Reading) => polarity(r) === 'positive';
const readNegative = (r: Reading) => polarity(r) === 'negative';
const flagged = (label: string) => (r: Reading) => r.intentions.includes(label);

const INTENSITY: Source[] = [
  { templates: p.INTENSITY_POSITIVE, sign: 1 },
  { templates: p.INTENSITY_NEGATIVE, sign: -1 },
];
/** Bases of every reading: praise, complaints, questions, churn. */
const MIXED: Source[] = [
  { templates: s.CLEAR_POSITIVE, sign: 1 },
  { templates: s.CLEAR_NEGATIVE, sign: -1 },
  { templates: i.NEUTRAL, sign: 0 },
  { templates: i.CHURN, sign: -1 },
];
const NOT_CHURN = MIXED.slice(0, 3);

/** DIR: the edit must not move the reading against the base's own direction (TOLERANCE). */
const intensity = (name: string, variant: p.Edit): PairCapability => ({
  kind: 'DIR',
  name,
  sources: INTENSITY,
  variant,
  failure: 'moved against the base (class, or value by > 0.1)',
  fails: (base, v, sign) => movedAgainst(base, v, sign),
  also: { failure: 'class flipped', fails: classAgainst },
});
/** INV: the polarity class and the churn flag must stay. */
const invariant = (name: string, variant: p.Edit): PairCapability => ({
  kind: 'INV',
  name,
  sources: MIXED,
  variant,
  failure: 'class or churn flag changed',
  fails: changed,
});

export const CAPABILITIES: readonly Capability[] = [
  mft('clear positive', s.CLEAR_POSITIVE, 'not positive', notPositive),
  mft('clear negative', s.CLEAR_NEGATIVE, 'not negative', notNegative),
  mft('negated negative', s.NEGATED_NEGATIVE, 'read negative', readNegative),
  mft('negated positive', s.NEGATED_POSITIVE, 'read positive', readPositive),
  mft('negated churn', i.NEGATED_CHURN, 'churn flagged', isChurn),
  mft('negated refund', i.NEGATED_REFUND, 'refund flagged', flagged('refund')),
  mft('negated upgrade', i.NEGATED_UPGRADE, 'upgrade flagged', flagged('upgrade')),
  mft('negated recommend', i.NEGATED_RECOMMEND, 'recommend flagged', flagged('recommend')),
  mft('contrast ending negative', s.CONTRAST_NEGATIVE, 'not negative', notNegative),
  mft('contrast ending positive', s.CONTRAST_POSITIVE, 'not positive', notPositive),
  mft('sarcasm', t.SARCASM, 'read positive', readPositive, { failure: 'not negative', fails: notNegative }),
  mft('polite complaint', t.POLITE_COMPLAINT, 'read positive', readPositive),
  mft('factual complaint', t.FACTUAL_COMPLAINT, 'not negative', notNegative),
  mft('churn statement', i.CHURN, 'churn missed', (r) => !isChurn(r)),
  mft('polite churn notice', i.POLITE_CHURN, 'churn missed', (r) => !isChurn(r)),
  intensity('intensifier words', p.intensify),
  intensity('caps and !!!', p.capsAndBangs),
  intensity('elongation', p.elongate),
  {
    kind: 'DIR',
    name: 'add negative sentence',
    sources: NOT_CHURN,
    variant: p.appendSentence(i.ADD_NEGATIVE),
    failure: 'class or value rose',
    fails: (base, v) => movedAgainst(base, v, -1),
  },
  {
    kind: 'DIR',
    name: 'add positive sentence',
    sources: NOT_CHURN,
    variant: p.appendSentence(i.ADD_POSITIVE),
    failure: 'class or value fell',
    fails: (base, v) => movedAgainst(base, v, 1),
  },
  {
    kind: 'DIR',
    name: 'add churn sentence',
    sources: NOT_CHURN,
    variant: p.appendSentence(i.ADD_CHURN),
    failure: 'churn missed',
    fails: (_, v) => !isChurn(v),
  },
  invariant('leading @handle', p.leadingHandle),
  invariant('trailing URL', p.trailingUrl),
  invariant('hashtags', p.trailingHashtag),
  {
    // The emoji agrees with the base's polarity (vocabulary.ts): a class moving that way is not a
    // failure (a neutral reading of "I hate the new login flow" becoming negative); any other change is.
    ...invariant('emoji', p.trailingEmoji),
    failure: 'class changed (not towards the emoji) or churn flag',
    fails: (base, v, sign) =>
      (polarity(base) !== polarity(v) && !(sign !== 0 && sign * (rank(v) - rank(base)) > 0)) ||
      isChurn(base) !== isChurn(v),
  },
  invariant('case change', p.changeCase),
  invariant('typos and abbreviations', p.typos),
];
