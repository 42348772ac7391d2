/**
 * Composition rules for polarity: three shapes of message whose meaning is not the sum of its
 * words, where the trained stack (heads.ts) keeps siding with the words it hears. Written from how
 * these shapes work in English (Polanyi & Zaenen's contextual valence shifters; the CheckList
 * capabilities of Ribeiro et al. 2020), not from any evaluation set; each rule gives a verdict only
 * when its shape is found and the words around it say clearly which way it goes:
 *
 * - **contrast**: "X, but Y", "although X, Y", "at first X, now Y", "X until Y": the later part
 *   carries the verdict (the corpus' labelling rule, data/train/README.md) when it leans one way
 *   and the earlier part does not lean the same way;
 * - **denied praise**: "not exactly fast", "hardly user friendly", "far from reliable", "I wouldn't
 *   call it intuitive", "used to be great, not anymore": praise under a negator, with no praise
 *   said plainly and no complaint denied, is a complaint;
 * - **sarcasm**: a short opening of praise ("Brilliant,", "Oh great,", "Love how", "Thanks for
 *   nothing", "Just what I needed,", "What a great time for") followed by a failure, with no praise
 *   in what follows, is a complaint;
 * - **polite complaint**: courtesy around impatience or a failure ("it would be great if the export
 *   actually worked", "with respect, the update made it slower") is a complaint, not praise;
 * - **thanks for a mending**: thanks for a failure put right ("thank you for taking the late fee off
 *   my account") is praise, not the failure it names;
 * - **mismatch**: what was ordered, booked or paid for against what came ("booked a double room, got
 *   two singles", "the seat we paid for actually faces a wall", "charged for a plan we never signed
 *   up for") is a complaint, however calmly put;
 * - **denied complaint**: a complaint word under a negator with nothing complained of plainly
 *   ("wasn't painful at all", "hasn't crashed once", "no downtime") is not a complaint.
 *
 * A verdict moves the stack's probabilities halfway toward its class (heads.ts composePolarity):
 * enough to decide the class, while the value keeps the readers' expectation in it. The rules run
 * after the stack, like the denial veto for intentions: HeadsOptions.composition turns them off,
 * and `npm run eval -- --composition=off` measures what they do on cross-validation.
 *
 * The rules live in ./composition/, a file for each kind: contrast.ts, denials.ts, sarcasm.ts,
 * courtesy.ts, failures.ts, praise.ts, story.ts, warning.ts and comparison.ts, over the words of
 * vocabulary.ts, the readings of reading.ts and the envelope of envelope.ts. This file holds the
 * order in which they are asked.
 */
import { BAD_NEWS, contrastParts, expectationDenied, juxtaposed } from './composition/contrast.js';
import { COURTESY, helpWithProblem, openProblem, politeComplaint } from './composition/courtesy.js';
import { deniedComplaint, deniedPraise, emphaticNever } from './composition/denials.js';
import { core, SIGN_OFF_COURTESY } from './composition/envelope.js';
import {
  countsDiffer,
  failureTold,
  MENDED,
  mismatch,
  MISMATCH,
  plainFailure,
  SERVICE_FAILED,
} from './composition/failures.js';
import { clearPraise, plainPraise, praiseIdiom } from './composition/praise.js';
import { CLEAR, lean, type ReaderLean, signOf } from './composition/reading.js';
import { sarcasm } from './composition/sarcasm.js';
import { resolvedStory, thanksForMending } from './composition/story.js';
import { warning } from './composition/warning.js';

export type Verdict = {
  sign: -1 | 1;
  rule:
    | 'contrast'
    | 'denied praise'
    | 'sarcasm'
    | 'learned sarcasm'
    | 'polite complaint'
    | 'mismatch'
    | 'plain failure'
    | 'open problem'
    | 'denied complaint'
    | 'emphatic never'
    | 'praise idiom'
    | 'plain praise'
    | 'clear praise'
    | 'expectation denied'
    | 'warning'
    | 'resolved story'
    | 'thanks for a mending';
};

/** The composition verdict of a (normalised) message, or undefined when no rule applies. */
export function compositionVerdict(message: string, reader?: ReaderLean): Verdict | undefined {
  const text = core(message);
  const expected = expectationDenied(text, reader);
  if (expected) return { sign: expected, rule: 'expectation denied' };
  // Before the contrast: "Big fan of the app, but I've run into a snag: … Could you help? Thanks!"
  if (openProblem(text, message) < 0) return { sign: -1, rule: 'open problem' };
  if (helpWithProblem(text, message) < 0) return { sign: -1, rule: 'polite complaint' };
  const parts = contrastParts(text);
  if (parts) {
    const marker = text.slice(text.indexOf(parts[0]) + parts[0].length, text.lastIndexOf(parts[1]));
    const badNews = BAD_NEWS.test(marker) ? -2 * CLEAR : 0;
    // A denial first: the lexicons misread "there was no hassle" as a hassle.
    const after =
      warning(parts[1]) ||
      deniedPraise(parts[1], reader) ||
      deniedComplaint(parts[1]) ||
      // A service failing by a negated verb ("support hasn't answered a single ticket") before the
      // lexicons, which read such a part as nothing or as praise.
      (SERVICE_FAILED.test(parts[1]) && !MENDED.test(parts[1]) ? -1 : 0) ||
      // What was promised is not what came ("I was told it would be free, but I've been billed £60"):
      // the lexicons read the promise.
      ((MISMATCH.test(parts[1]) || countsDiffer(parts[1])) && !/\?/.test(parts[1]) ? -1 : 0) ||
      signOf(lean(parts[1].replace(SIGN_OFF_COURTESY, ' '), reader) + badNews) ||
      // "…, but the car smelled of smoke and had a flat tyre", "…. The soup was cold though.": a failure told calmly.
      plainFailure(parts[1]) ||
      failureTold(parts[1]) ||
      praiseIdiom(parts[1], reader);
    // Courtesy around a complaint leans nowhere on either side: "I hate to bother you, but …".
    const before = signOf(lean(parts[0].replace(COURTESY, ' '), reader));
    if (after !== 0 && before !== after) return { sign: after, rule: 'contrast' };
    if (after !== 0) return undefined;
  } else {
    const side = juxtaposed(text, reader);
    if (side) return { sign: side, rule: 'contrast' };
  }
  const emphatic = emphaticNever(text, reader);
  if (emphatic) return { sign: emphatic, rule: 'emphatic never' };
  // After "at first … but now", a denial before the turn is what has ended ("at first I didn't trust them").
  // (Not "I used to recommend it, but I don't anymore", whose denial is after the turn.)
  const turned = parts && /\b(?:at first|initially|in the beginning|originally|to begin with)\b/iu.test(parts[0]);
  if (deniedPraise(turned ? parts[1] : text, reader) < 0) return { sign: -1, rule: 'denied praise' };
  if (warning(text) < 0) return { sign: -1, rule: 'warning' };
  // Before the sarcasm rule, whose "thanks for <a failure>" it would otherwise be.
  if (thanksForMending(text) > 0) return { sign: 1, rule: 'thanks for a mending' };
  if (sarcasm(text) < 0) return { sign: -1, rule: 'sarcasm' };
  // A mismatch first: told politely it is still a failure told, which moves a neutral reading too.
  if (mismatch(text, reader) < 0) return { sign: -1, rule: 'mismatch' };
  if (politeComplaint(text, reader) < 0) return { sign: -1, rule: 'polite complaint' };
  // ("I've yet to come across a single broken machine": a failure the denial rule hears denied.)
  if (plainFailure(text) < 0 && deniedComplaint(text) === 0) return { sign: -1, rule: 'plain failure' };
  if (resolvedStory(text, reader) > 0) return { sign: 1, rule: 'resolved story' };
  if (deniedComplaint(text) > 0) return { sign: 1, rule: 'denied complaint' };
  if (praiseIdiom(text, reader) > 0) return { sign: 1, rule: 'praise idiom' };
  if (plainPraise(text, reader) > 0) return { sign: 1, rule: 'plain praise' };
  if (clearPraise(text, reader) > 0) return { sign: 1, rule: 'clear praise' };
  return undefined;
}
