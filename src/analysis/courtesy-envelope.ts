import { createHash } from 'node:crypto';
import type { LabelledText } from './corpus.js';

/**
 * Courtesy envelopes (HeadsOptions.courtesyEnvelopes): each English corpus line is copied inside a
 * greeting, a sign-off or both, with its polarity unchanged, and both readers' polarity models learn
 * from the copies too. In the corpus "thanks" sits on praise twice as often as on complaints (142
 * positive, 72 negative of 344 lines), so the readers took courtesy for praise and read a polite
 * complaint positive; wrapped copies of complaints, praise and neutral lines alike teach that the
 * envelope says nothing about the message inside (the corpus' labelling rule: politeness does not
 * lift a reported failure above −0.2). A programmatic transform of our own lines, as the issue
 * allows; the pieces below were written for it from general knowledge, not from any evaluation set.
 */
const OPENERS = [
  'Hi,',
  'Hi there,',
  'Hello team,',
  'Hey folks,',
  'hey,',
  'Good morning,',
  'Good afternoon!',
  'Dear support team,',
  'Hope you are well.',
  "Hope you're having a good week.",
  'Hi all, hope everyone is keeping well.',
  'Sorry to bother you.',
  'Thanks for getting back to me.',
  'Thank you for your reply.',
  'Apologies for the long message.',
  'Quick one for you:',
  'Hello again,',
  'Hi, thanks for reading this.',
];

const CLOSERS = [
  'Thanks!',
  'Thanks in advance.',
  'Thank you so much.',
  'Many thanks.',
  'Kind regards, Sam',
  'Best, Priya',
  'Cheers!',
  'thx',
  'Have a lovely day.',
  'Appreciate your time.',
  'Thank you for your patience.',
  'Much appreciated :)',
  'Take care.',
  'Thanks for listening.',
  'Warm regards, the Ortiz family',
  'Thanks a lot, have a great weekend!',
  'Thank you, really appreciate it.',
  'Regards, J.',
];

/** A line already holding a greeting or thanks keeps its own envelope: no copy. */
const ALREADY_WRAPPED = /^(hi|hello|hey|dear|good (morning|afternoon|evening))\b|\b(thanks|thank you|thx|regards)\b/i;

export interface EnvelopeLine {
  /** The index of the corpus line it wraps (folds keep a copy with its line). */
  parent: number;
  text: string;
}

/** A stable choice per line id, so every fold and every training wraps a line the same way. */
function draw(id: string): number {
  return createHash('sha256').update(`envelope:${id}`).digest().readUInt32BE(0);
}

export function courtesyEnvelopes(items: LabelledText[]): EnvelopeLine[] {
  const out: EnvelopeLine[] = [];
  items.forEach((it, parent) => {
    if (it.register === 'foreign' || ALREADY_WRAPPED.test(it.text)) return;
    const d = draw(it.id);
    const opener = OPENERS[d % OPENERS.length];
    const closer = CLOSERS[Math.floor(d / OPENERS.length) % CLOSERS.length];
    // A third opener only, a third closer only, a third both.
    const shape = Math.floor(d / (OPENERS.length * CLOSERS.length)) % 3;
    const body = it.text.trim();
    const text = shape === 0 ? `${opener} ${body}` : shape === 1 ? `${body} ${closer}` : `${opener} ${body} ${closer}`;
    out.push({ parent, text });
  });
  return out;
}
