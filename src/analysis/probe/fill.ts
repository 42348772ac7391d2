import type { Filled, Sign } from './capability.js';
import { VOCABULARY } from './vocabulary.js';

/**
 * Filling one template: slots drawn from the vocabulary, the sentence framed in a register (a chat
 * line, an email sentence, a review, a ticket, a short post).
 */

export const pick = <T>(list: readonly T[], random: () => number): T => list[Math.floor(random() * list.length)];
const SLOT = /\{([a-z]+)(\d?)\}/g;

/** Fills each `{slot}` of a template; slots of one list in one template get different values, none of `taken`. */
export function fillSlots(template: string, random: () => number, taken: readonly string[] = []) {
  const slots: Record<string, string> = {};
  const used = new Set(taken);
  for (const [, list, n] of template.matchAll(SLOT)) {
    const key = list + n;
    if (key in slots) continue;
    const values = VOCABULARY[list];
    if (!values) throw new Error(`probe template ${JSON.stringify(template)}: no vocabulary for {${key}}`);
    const free = values.filter((v) => !used.has(v));
    slots[key] = pick(free.length ? free : values, random);
    used.add(slots[key]);
  }
  return slots;
}

/** The template's sentence: slots filled, first letter capitalised, a full stop unless it has its own. */
export function render(template: string, slots: Record<string, string>): string {
  const s = template.replace(SLOT, (_, list: string, n: string) => slots[list + n]);
  const capital = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** The first letter in lower case, as after a greeting, except for "I" and names. */
const NAMES = new Set([...VOCABULARY.product, ...VOCABULARY.competitor, ...VOCABULARY.name]);
function lowerFirst(core: string): string {
  const first = core.split(/[\s,.'’?!]/)[0];
  return first === 'I' || NAMES.has(first) || /^[A-Z]{2}/.test(first)
    ? core
    : core.charAt(0).toLowerCase() + core.slice(1);
}

type Frame = (core: string) => string;
/** Registers: each draws its own framing once per case, so a pair's two texts share it. */
const REGISTERS: ((random: () => number) => Frame)[] = [
  // A chat line: lower case start, no full stop.
  () => (core) => (core.charAt(0).toLowerCase() + core.slice(1)).replace(/\.$/, ''),
  // An email sentence.
  (random) => {
    const hello = pick(['Hi team, ', 'Hello, ', 'Good morning, ', `Hi ${pick(VOCABULARY.name, random)}, `], random);
    const bye = pick(['', ` Regards, ${pick(VOCABULARY.name, random)}`, ` — ${pick(VOCABULARY.name, random)}`], random);
    return (core) => `${hello}${lowerFirst(core)}${bye}`;
  },
  // A review.
  (random) => {
    const lead = pick(['', `After ${pick(VOCABULARY.duration, random)} of use: `, 'Update: ', 'My take: '], random);
    return (core) => lead + core;
  },
  // A support ticket.
  (random) => {
    const subject = pick(
      ['Re: your reply', `Case ${pick(VOCABULARY.ticket, random)}`, 'Re: account', 'Workspace'],
      random,
    );
    return (core) => `${subject} — ${core}`;
  },
  // A short post.
  (random) => {
    const stop = random() < 0.5;
    return (core) => (stop ? core : core.replace(/\.$/, ''));
  },
];

/** One case of a template: filled, framed, and able to remake itself with edits. */
export function fillCase(template: string, sign: Sign, random: () => number): Filled {
  const slots = fillSlots(template, random);
  const frame = pick(REGISTERS, random)(random);
  const make = (s: Record<string, string>, edit: (core: string) => string = (c) => c) =>
    frame(edit(render(template, s)));
  return { template, slots, sign, text: make(slots), make };
}
