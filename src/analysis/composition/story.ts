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
import { HELP_ASKED, STILL_OPEN } from './courtesy.js';
import { MENDED, MENDING, SERVICE_FAILED, undeniedFailures } from './failures.js';
import { GRATITUDE, praiseIdiom, REQUEST } from './praise.js';
import { CLEAR, lean, type ReaderLean, scopedWords, SHORT_WORDS, words } from './reading.js';
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

/**
 * Help still asked for, or a problem still open: no story has been resolved ("… my saved recipes
 * have disappeared … I'd love to know if there's a way to restore them. Thanks a lot!", "the window
 * still won't close … I'd be grateful if someone could come and look"; the read set dev24).
 */
const STILL_ASKING =
  /\b(?:any (?:suggestions|ideas|advice|help|tips) (?:would|will) be|could (?:i|we) (?:have|get|book)|(?:could|can|would|will) (?:you|your \p{L}+|someone|somebody|anyone|the \p{L}+)(?: please| kindly| possibly)? (?:\p{L}+ ){0,3}?(?:correct|fix|sort|check|look|send|replace|rebook|reset|activate|arrange|restore|help)|(?:i|we)['’]?d (?:love|like) to know|(?:i|we)['’]?d be grateful)\b/iu;
export function resolvedStory(text: string, reader?: ReaderLean): 1 | 0 {
  if (words(text) > STORY_WORDS || REQUEST.test(text) || LEAVING.test(text) || /\?\s*$/u.test(text)) return 0;
  if (STILL_ASKING.test(text) || HELP_ASKED.test(text) || STILL_OPEN.test(text)) return 0;
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

/**
 * A mending the thanks are for, or told beside them: "for taking the late fee off my account", "for
 * finding my lost passport", "the missing episodes are back on my list" (dev29's polite thanks, read
 * negative on their failure words).
 */
const THANKED_MENDING =
  /\bfor (?:fixing|sorting|resolving|solving|refunding|crediting|replacing|restoring|waiving|finding|returning|reinstating|recovering|reversing|cancell?ing the (?:\p{L}+ )?(?:fee|charge|penalty|fine)|(?:taking|getting) (?:the |that |my |our )?(?:[\p{L}-]+ ){0,2}(?:fee|charge|penalty|fine|surcharge)s? (?:off|removed|waived|refunded)|getting (?:us|me|it|them|the \p{L}+) (?:back (?:online|on|up|working|running)|through|there (?:just )?in time|sorted|fixed)|sending (?:someone|somebody|an engineer|a technician) (?:out|round|over))\b|\b(?:is|are|['’]s) back on\b|\b(?:is|are) (?:now )?back (?:on|in) (?:my|our|the) (?:list|account|library|app|profile|folder)\b/iu;
const LATE_MENDING =
  /\b(?:only took|took (?:over |nearly |almost |about )?(?:\d+|two|three|four|five|six|several|many) (?:days|weeks|months|years)|for finally|finally (?:refunded|fixed|sorted|replied|responded|answered|got back|came|arrived|turned up|done)|at last|eventually|after (?:\d+|two|three|four|five|six|several|many) (?:days|weeks|months|years|calls|emails|attempts))\b/iu;
/**
 * Thanks for a failure put right are praise: the stack hears the failure's words ("late fee",
 * "lost", "missing") and reads them as a complaint. Only a short message that asks for nothing
 * more, turns at no "but", has no problem still open and wears no mark of irony ("thanks for
 * 'fixing' it").
 */
export function thanksForMending(text: string): 1 | 0 {
  if (
    words(text) > SHORT_WORDS ||
    /\?/u.test(text) ||
    !(GRATITUDE.test(text) || /\bappreciat\w*/iu.test(text)) ||
    !THANKED_MENDING.test(text)
  )
    return 0;
  if (MARKER.test(text) || STILL_ASKING.test(text) || HELP_ASKED.test(text) || STILL_OPEN.test(text)) return 0;
  // A mending that came late is no thanks: "cheers for refunding me... only took 3 months".
  if (LATE_MENDING.test(text)) return 0;
  // "Thanks for fixing nothing", "for finding new ways to charge me": irony.
  if (
    /\bfor \p{L}+ing (?:absolutely |precisely )?(?:nothing|none|new ways|more ways|(?:it|things|everything) worse)\b/iu.test(
      text,
    )
  )
    return 0;
  return SARCASM_CUE.test(text) || SCARE_QUOTES.test(text) ? 0 : 1;
}
