/**
 * Sentence-level reading: a long message is also read sentence by sentence, so one line of praise
 * in a complaint, or a churn threat at the end of a long ticket, is not averaged away in the
 * whole-message embedding. Splitting is by punctuation and line breaks (customer text rarely has
 * the abbreviations that make this hard, and a wrong cut only moves a few words between two
 * neighbouring pieces); a piece under MIN_WORDS words is joined to the one before it.
 */
const MIN_WORDS = 4;
/** Only messages of at least this many words are split (shorter ones are one sentence or nearly). */
export const SPLIT_FROM_WORDS = 12;
/** At most this many pieces per message: more sentences are grouped into this many runs. */
export const MAX_PIECES = 6;

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** The pieces a message is read in, beside the whole; [] when it is read whole only. */
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
