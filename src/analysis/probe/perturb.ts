import type { Filled } from './capability.js';
import { fillSlots, pick, render } from './fill.js';
import { ABBREVIATIONS, EMOJI, HANDLES, HASHTAGS, INTENSIFIERS, URLS } from './vocabulary.js';

/**
 * The edits of the INV and DIR tests. Each takes a filled base case and returns the edited text,
 * or undefined when the edit does not apply to that base.
 */
export type Edit = (c: Filled, random: () => number) => string | undefined;

/** Bases for the intensity tests: one sentiment adjective ({pa} or {na}) that the edit works on. */
export const INTENSITY_POSITIVE = [
  'The {aspect} is {pa}',
  'I find the {aspect} {pa}',
  'Our team thinks the {aspect} is {pa}',
  'The new {aspect} feels {pa}',
  '{product} has been {pa} for the {dept} team',
  'The {aspect} has been {pa} this week',
  'Honestly the {aspect} in {product} is {pa}',
] as const;
export const INTENSITY_NEGATIVE = INTENSITY_POSITIVE.map((t) => t.replace('{pa}', '{na}'));

const adjectiveSlot = (c: Filled) => ('pa' in c.slots ? 'pa' : 'na' in c.slots ? 'na' : undefined);

/** "very", "extremely", "really"… before the sentiment adjective. */
export const intensify: Edit = (c, random) => {
  const key = adjectiveSlot(c);
  return key && c.make({ ...c.slots, [key]: `${pick(INTENSIFIERS, random)} ${c.slots[key]}` });
};

/** The adjective in capitals, "!!!" at the end, or both. */
export const capsAndBangs: Edit = (c, random) => {
  const key = adjectiveSlot(c);
  if (!key) return undefined;
  const style = Math.floor(random() * 3);
  const slots = style === 1 ? c.slots : { ...c.slots, [key]: c.slots[key].toUpperCase() };
  return c.make(slots, style === 0 ? undefined : (core) => core.replace(/[.!]?$/, '!!!'));
};

/** "slooow", "frustratinggg": a short word's first vowel held, a long word's last letter. */
export function elongated(word: string, random: () => number): string {
  const extra = 2 + Math.floor(random() * 2);
  if (word.length > 6) return word + word.slice(-1).repeat(extra);
  return word.replace(/[aeiou]+/i, (run) => run + run.slice(-1).repeat(extra));
}

/** The adjective's first word elongated, or the adjective after an elongated "so". */
export const elongate: Edit = (c, random) => {
  const key = adjectiveSlot(c);
  if (!key) return undefined;
  const [first, ...rest] = c.slots[key].split(' ');
  const value =
    random() < 0.5 ? [elongated(first, random), ...rest].join(' ') : `${elongated('so', random)} ${c.slots[key]}`;
  return c.make({ ...c.slots, [key]: value });
};

/** Appends one sentence of `templates`, filled with values the base does not use. */
export const appendSentence =
  (templates: readonly string[]): Edit =>
  (c, random) => {
    const template = pick(templates, random);
    const added = render(template, fillSlots(template, random, Object.values(c.slots)));
    return c.make(c.slots, (core) => `${core} ${added}`);
  };

export const leadingHandle: Edit = (c, random) => `${pick(HANDLES, random)} ${c.text}`;
export const trailingUrl: Edit = (c, random) => `${c.text} ${pick(URLS, random)}`;
export const trailingHashtag: Edit = (c, random) =>
  random() < 0.5
    ? `${c.text} ${pick(HASHTAGS, random)}`
    : `${c.text} ${pick(HASHTAGS, random)} ${pick(HASHTAGS, random)}`;
/** An emoji that agrees with the base's polarity (EMOJI). */
export const trailingEmoji: Edit = (c, random) =>
  `${c.text} ${pick(EMOJI[String(c.sign) as '-1' | '0' | '1'], random)}`;

/** All lower case, or all upper case when it already is lower case (or at random). */
export const changeCase: Edit = (c, random) => {
  const lower = c.text.toLowerCase();
  return lower === c.text || random() < 0.4 ? c.text.toUpperCase() : lower;
};

/** Two neighbouring letters swapped inside a word of five letters or more. */
function swapLetters(text: string, random: () => number): string | undefined {
  const words = [...text.matchAll(/[A-Za-z]{5,}/g)];
  if (words.length === 0) return undefined;
  const w = pick(words, random);
  const i = w.index + 1 + Math.floor(random() * (w[0].length - 3));
  return text.slice(0, i) + text[i + 1] + text[i] + text.slice(i + 2);
}

/** One or two of: a chat abbreviation, apostrophes dropped, two letters swapped. */
export const typos: Edit = (c, random) => {
  const edits: ((t: string) => string | undefined)[] = [
    ...ABBREVIATIONS.filter(([re]) => re.test(c.text)).map(
      ([re, short]) =>
        (t: string) =>
          t.replace(re, short),
    ),
    ...(/['’]/.test(c.text) ? [(t: string) => t.replace(/['’]/g, '')] : []),
    (t: string) => swapLetters(t, random),
  ];
  let text = c.text;
  const count = 1 + Math.floor(random() * 2);
  for (let n = 0; n < count && edits.length; n++) {
    const [edit] = edits.splice(Math.floor(random() * edits.length), 1);
    text = edit(text) ?? text;
  }
  return text;
};
