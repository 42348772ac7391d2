/**
 * A complaint put right, told as a story that ends in praise: "I wasn't impressed after they put a
 * hold on my card … they released it the same day and apologised. Now I'm a very happy customer.",
 * "Week one: the queue was long. Two months in: the crew are the friendliest I've flown with.",
 * "Ticket … Resolution: the manager refunded me on the spot. Customer confirmed they are
 * delighted." The corpus judges a mixed message by its overall tone (data/train/README.md); a
 * failure that was mended or has passed, and a verdict of praise after it, is praise. The stack
 * hears the failure's words and reads such stories weakly negative (the dev17 read set). (The rules
 * that use them: ../composition.ts.)
 */
import { MARKER, TIME_TURN } from './contrast.js';
import { MENDED, MENDING, SERVICE_FAILED, undeniedFailures } from './failures.js';
import { praiseIdiom, REQUEST } from './praise.js';
import { CLEAR, lean, type ReaderLean, scopedWords, words } from './reading.js';
import { IRONIC, PRAISE_CLOSING, SARCASM_CUE, SCARE_QUOTES } from './sarcasm.js';
import { complaint, praise } from './vocabulary.js';

/** Longer than the contrast rule's reach (30 words), shorter than a letter. */
const STORY_WORDS = 60;
/** The failure has passed: time has turned, or someone put it right. */
const TURNED = new RegExp(
  String.raw`${TIME_TURN.source}|\b(?:now|later|turned out|anyway|in the end|eventually|second chance|after (?:a few|a couple of|some|two|three) (?:days|weeks|months)|(?<!(?:\bno(?:body| one)?|\bnever|\bnot|n['’]t)(?:\s+\p{L}+){0,2}\s+)apologi[sz]\w*|paid out|made (?:it|things) right|put (?:it|things) right|made up for)\b`,
  'iu',
);
/** A sentence of thanks alone ("Thanks so much!"), which closes a story without judging it. */
const THANKS_ONLY =
  /^\W*(?:(?:thanks?|thank you|thx|ty|cheers|many thanks)(?: (?:so|very) much| a lot| again| guys| team)?\W*)+$/iu;
const LEAVING = /\b(?:clos(?:e|ing) (?:my|our)|cancel\w*|leaving|switch\w*|never again)\b/iu;

/** A failure, or a complaint word or praise denied ("I wasn't impressed"), said in the stretch. */
const told = (stretch: string) =>
  undeniedFailures(stretch).length > 0 ||
  SERVICE_FAILED.test(stretch) ||
  scopedWords(stretch).some(
    ({ word, distance }) => (distance === Infinity && complaint(word)) || (distance <= 3 && praise(word)),
  );
/** A star rating given ("Five stars from me."): praise in a story's verdict, where it is no sarcasm. */
const RATED = /\b(?:five|5) stars\b|\b10\/10\b|\bfull marks\b/iu;
/** What closes a story without judging it: thanks alone, a hashtag, a name. */
const CLOSING_ONLY = (s: string) => THANKS_ONLY.test(s) || /^\W*(?:#\p{L}+\W*)+$/u.test(s) || words(s) <= 1;

export function resolvedStory(text: string, reader?: ReaderLean): 1 | 0 {
  if (words(text) > STORY_WORDS || REQUEST.test(text) || LEAVING.test(text) || /\?\s*$/u.test(text)) return 0;
  if (SARCASM_CUE.test(text) || SCARE_QUOTES.test(text)) return 0;
  // Sentences end at a stop or an emoji ("half my order never turned up 😩 Two months later: …").
  const sentences = text.split(/(?<=[.!?…]|\p{Extended_Pictographic})\s+/u).filter((s) => words(s) >= 1);
  while (sentences.length > 1 && CLOSING_ONLY(sentences.at(-1)!)) sentences.pop();
  const body = sentences.join(' ');
  // The verdict: what follows the last turn ("…, sure, but after a few weeks it's a gem. Five stars
  // from me."), when that is at most two sentences; else the last sentence.
  const turn = [...body.matchAll(MARKER), ...body.matchAll(TIME_TURN)].sort((a, b) => a.index - b.index).at(-1);
  const tail = turn ? body.slice(turn.index! + turn[0].length) : '';
  const verdict = turn && tail.split(/(?<=[.!?…])\s+/u).length <= 2 ? tail : (sentences.at(-1) ?? '');
  const story = body.slice(0, body.lastIndexOf(verdict));
  // Bare praise closing a failure ("Lost my bag. Great job.") is sarcasm's shape, not a verdict.
  if (words(verdict) < 3 || (PRAISE_CLOSING.test(text) && words(verdict) <= 4)) return 0;
  if (!told(story) || told(verdict)) return 0;
  // Passed or put right. After an idiom of irony ("couldn't be happier") a "but" is not enough:
  // "The flight was delayed, but hey, couldn't be happier" is sarcasm.
  const mended = TURNED.test(body) || MENDED.test(story) || MENDING.test(story);
  if (!mended && !(turn && !IRONIC.test(text))) return 0;
  return lean(verdict, reader) >= 2 * CLEAR || praiseIdiom(verdict, reader) > 0 || RATED.test(verdict) ? 1 : 0;
}
