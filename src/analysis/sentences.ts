/**
 * Sentence-level reading: a long message is read sentence by sentence (its vector is then the mean
 * of its sentences', features.ts), so one line of praise in a complaint, or a churn threat at the
 * end of a long ticket, is seen on its own by the heads' second stage instead of averaged away.
 * Splitting is by punctuation and line breaks (customer text rarely has the abbreviations that make
 * this hard, and a wrong cut only moves a few words between two neighbouring pieces); a piece under
 * MIN_WORDS words is joined to its neighbour (a short first one to the next, others to the one
 * before). A long message that stays one piece (a single run-on sentence) is read whole.
 */
// Changing any of these three changes what the heads are trained on: bump HEADS_VERSION (heads.ts).
const MIN_WORDS = 6;
/**
 * Only messages of at least this many words are split. The embedder's cost per text has a large
 * fixed part, so 20 words / pieces of 6 / at most 4 (1.6 texts per corpus message) was kept over
 * 12 / 4 / 6 (1.9): the same on cross-validation (commit 4e8a4f3).
 */
export const SPLIT_FROM_WORDS = 20;
/** At most this many pieces per message: more sentences are grouped into this many runs. */
export const MAX_PIECES = 4;

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** The pieces a message is read in; [] when it is read whole. */
export function sentencesOf(text: string): string[] {
  if (words(text) < SPLIT_FROM_WORDS) return [];
  const raw = text
    .split(/(?<=[.!?…。！？])\s+|\s*\n+\s*|(?<=[.!?])(?=[A-Z][a-z])/u)
    .map((s) => s.trim())
    .filter(Boolean);
  const pieces: string[] = [];
  for (const s of raw) {
    if (pieces.length > 0 && (words(s) < MIN_WORDS || words(pieces[pieces.length - 1]) < MIN_WORDS))
      pieces[pieces.length - 1] += ` ${s}`;
    else pieces.push(s);
  }
  if (pieces.length < 2) return [];
  if (pieces.length <= MAX_PIECES) return pieces;
  // Consecutive runs of nearly equal size: the whole message stays covered, in order.
  const out: string[] = [];
  for (let g = 0; g < MAX_PIECES; g++) {
    const from = Math.floor((g * pieces.length) / MAX_PIECES);
    const to = Math.floor(((g + 1) * pieces.length) / MAX_PIECES);
    out.push(pieces.slice(from, to).join(' '));
  }
  return out;
}
