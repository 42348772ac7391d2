/**
 * Denials: praise denied ("not exactly fast"), a complaint denied ("wasn't painful at all", "nobody
 * was rude") and a "never" that compares. (The rules that use them: ../composition.ts.)
 */
import { wordTokens } from '../word-features.js';
import { BY_COMPARISON } from './comparison.js';
import { FAILURE, FEAR_UNREALISED } from './failures.js';
import { WARNING } from './warning.js';
import { ABSENCE, CLEAR, lean, type ReaderLean, scopedWords, SHORT_WORDS, signOf, words } from './reading.js';
import { complaint, praise } from './vocabulary.js';

/** How near a negator a praise word must be to count as denied ("I wouldn't call the desktop app user friendly"). */
const DENIAL_REACH = 6;

/**
 * Negators that do not deny what follows: "couldn't be happier", "can't recommend it enough",
 * "never been better", "not only … but", "no doubt", "nothing but praise", "can't stop smiling",
 * "can't get enough of it" (an intensifier, not a denial).
 */
const NOT_A_DENIAL =
  /\b(?:(?:wasn['’]?t|was not|didn['’]?t|never|weren['’]?t|hadn['’]?t) (?:really )?expect(?:ing|ed)? (?:it|that|this|them|things) to (?:be|go) (?:that|so|this|quite that) (?:easy|quick|fast|simple|smooth|good|painless|straightforward)|(?:never|not|\p{L}+n['’]t)(?: \p{L}+){0,3} anything (?:but|other than|less than)|(?:could(?:n'?t| not)|can'?t|cannot) (?:be|have been|ask for|recommend|say enough|thank)\b[^.!?]*\b(?:happier|better|(?<!\bany )more|enough|easier|faster|smoother)\b|never (?:been|felt|looked|worked) better|not only|no doubt|nothing but (?:good|great|praise|positive)|never (?:once )?(?:let|lets|letting) (?:us|me) down|not (?:a|one) (?:single )?(?:problem|issue|complaint|hiccup)|nothing (?:beats|compares to|comes close to|tops)|(?:can['’]?t|cannot|could(?:n['’]?t| not)) believe (?:how|what|that|it|they|i)\b|(?:didn['’]?t|did not|never) (?:know|knew|realise|realised|realize|realized|think|thought|imagine|imagined)(?: \p{L}+){0,4} (?:could|can|would) (?:be|get|feel|look|make (?:me|us)) (?:this|so|that)\b|(?:didn['’]?t|did not|never) (?:expect|anticipate)(?:ed)? (?:the|such|a|an|this|that|it to be|them to be)\b|(?:can['’]?t|cannot|could(?:n['’]?t| not)) (?:stop|help)(?: but)? (?:smil|grin|laugh|rav|gush|recommend|tell|talk)\p{L}*|(?:can['’]?t|cannot|could(?:n['’]?t| not)) get enough of)/iu;

/** "used to be great, not anymore": praise that has ended (the praise itself is outside the negator's scope). */
const ENDED = /\b(?:not|no|\p{L}+n['’]?t) (?:any ?more|any longer|longer)\b/giu;

/** Idioms of praise withheld: "could have been better", "leaves a lot to be desired", "not all that good". */
const WITHHELD =
  /\b(?:(?:is|was|are|were)(?:n['’]?t| not)|not) (?:really |even )?worth (?:it|the (?:money|price|cost|hassle|fee|wait))\b|\bcould(?:['’]ve| have) been (?:a lot |much |way )?(?:better|faster|smoother|easier|clearer|cheaper|quicker)\b|\bleaves? (?:a lot|much|something) to be desired\b|\b(?:not|isn['’]?t|wasn['’]?t|aren['’]?t|weren['’]?t) (?:all )?that (?:great|good|impressive|special|helpful|useful)\b|\bnothing (?:special|to write home about)\b/iu;

/**
 * Praise held short of itself: "nowhere near as fast as promised", "less than impressive", "not
 * remotely helpful" (dev27). The word after it (or after "as", "so" or "that") must be praise.
 */
const SHORT_OF =
  /\b(?:nowhere near|not (?:nearly|remotely|even close to)|less than)\s+(?:as\s+|so\s+|that\s+)?(\p{L}+)/iu;

/**
 * Praise that has ended, said alone: "The corner café used to be friendly." (one sentence, nothing
 * after the praise, no "still"): the writer says it no longer is (dev27).
 */
const USED_TO_BE =
  /^[^.!?]*\bused to be (?:so |really |very |quite |pretty |genuinely |actually )?(\p{L}+)(?: \p{L}+)?\s*[.!]*\s*$/iu;

const RAISED_BY_COMPARISON = new RegExp(BY_COMPARISON, 'iu');

/** Praise denied, nothing praised plainly and no complaint denied: -1; else 0. */
export function deniedPraise(text: string, reader?: ReaderLean): -1 | 0 {
  if (NOT_A_DENIAL.test(text) || RAISED_BY_COMPARISON.test(text) || words(text) > SHORT_WORDS) return 0;
  if (WITHHELD.test(text)) return -1;
  const short = text.match(SHORT_OF);
  if (short && praise(short[1].toLowerCase())) return -1;
  const usedTo = text.match(USED_TO_BE);
  if (usedTo && praise(usedTo[1].toLowerCase()) && !/\bstill\b/iu.test(text)) return -1;
  // "The agent was anything but helpful".
  const butPraise = text.match(/\banything but (\p{L}+)/iu);
  if (butPraise && praise(butPraise[1].toLowerCase())) return -1;
  // "Would you say the onboarding is smooth? Not really, no.": praise asked about, answered no.
  const answered = text.match(ANSWERED_NO);
  if (answered) {
    const asked = wordTokens(text.slice(0, answered.index));
    if (asked.some((t) => praise(t)) && !asked.some((t) => complaint(t))) return -1;
  }
  let denied = 0;
  let plain = 0;
  const scoped = scopedWords(text);
  // Where each stretch between dashes ends, in words: "Can't say I saw any of that - they were lovely".
  const stretchEnds: number[] = [];
  for (const stretch of text.split(/\s[-–—]\s/u))
    stretchEnds.push((stretchEnds.at(-1) ?? 0) + wordTokens(stretch).length);
  const stretchOf = (k: number) => stretchEnds.findIndex((end) => k < end);
  scoped.forEach(({ word, distance }, i) => {
    // "I wouldn't call the cabin crew friendly", "can't say the steak was tasty": a verb of opinion
    // passes the negation on to the clause it opens (as in deniedComplaint), so it reaches further,
    // within its stretch.
    const opens = Number.isFinite(distance) ? scoped[i - distance + 1]?.word : undefined;
    const raised = opens !== undefined && RAISING.test(opens) && stretchOf(i - distance) === stretchOf(i);
    const reach = raised ? DENIAL_REACH + 5 : DENIAL_REACH;
    if (distance <= reach) {
      if (complaint(word)) denied = -Infinity; // a complaint denied: praise by understatement, not this shape
      if (praise(word)) denied++;
    } else if (praise(word)) plain++;
  });
  if (denied > 0 && plain === 0) return -1;
  // "used to be great, not anymore": the praise sits outside the negator's scope.
  const ended = text.replace(ENDED, '');
  if (ended !== text && /\bused to\b/i.test(text) && lean(ended, reader) >= CLEAR) return -1;
  return 0;
}

/**
 * A complaint denied, nothing complained of plainly and no praise denied: "the migration wasn't
 * painful at all", "hasn't crashed once", "the price isn't unreasonable", "no downtime all
 * weekend", "neither the app nor the site has frozen since Tuesday", "can't remember the last time it
 * threw an error": not a complaint (the corpus labels it praise). Not a question, and not "won't
 * stop crashing" (a negated stop is the failure going on). Five words of reach, not three (heads
 * v20): "not a single file went missing" and "nor the web version has frozen" put four between.
 */
const COMPLAINT_REACH = 5;

/** "Can't remember the last time it crashed": the failure has not happened for long. */
const NOT_SINCE_LONG =
  /\b(?:can['’]?t|cannot|could(?:n['’]?t| not)|don['’]?t|do not) (?:remember|recall) (?:the last time|when)\b/iu;

/** An answer of no after a question, at the end of the message ("Q: … problems? A: No, none."). */
const ANSWERED_NO_SHORT =
  /\?\s*(?:no|nope|nah|none|never|not (?:once|at all|one|a single (?:one|time)))(?:\s+(?:whatsoever|at all))?\s*[.!]/iu;
const ANSWERED_NO =
  /\?["'”’]?\s*(?:(?:\p{L}+\s+)?\p{L}+\s*:\s*)?["'“‘]?\s*(?:no|nope|nah|not at all|not in my experience|not (?:really|once|for me|for us|so far|lately|anymore|this time)|none|never)\b(?!\s+(?:worries|problem|rush|hurry|thanks))[^?]{0,60}$/iu;

/** A failure that has ended ("no longer happening"; not "not happening", which is the complaint). */
const ENDED_FAILURE =
  /\b(?:is|are|was|were|has|have|seems?|appears?)(?: been)? no longer (?:happening|occurring|an issue|a problem|there|showing up|appearing|an? thing)\b|\b(?:has|have) (?:gone away|disappeared|stopped happening)\b/iu;

/** A single word FAILURE names ("delay", "missing", "lost"), tested whole. */
const FAILURE_WORD = new RegExp(`^(?:${FAILURE.source.slice(5, -3)})$`, 'iu');

/** Verbs of opinion that pass a negation on to the clause after them, and "once" ("never once has the tracker been accurate"). */
const RAISING = /^(?:think|thought|say|said|call|find|found|feel|felt|believe|consider|reckon|suppose|expect|once)$/;

const TOO_MUCH = /^(?:high|steep|much|long|slow|expensive|pricey|complicated|hard|difficult|many)$/;
// ("cancellations", a vendor's, are failures: "I haven't had any more cancellations".)
const INTENTION_WORD = /^(?:refund\w*|cancel(?!lations$)\w*|disput\w*|charge\w*|leav\w*|switch\w*)$/;
/** Price words that name what a denial is about, not a failure ("the overdraft charges are not unreasonable"). */
const PRICE_NOUN = /^(?:charges|fees|bills|prices|rates|costs)$/;

/**
 * "Nothing in the bag was leaking", "nobody at the desk was rude": the word is what the denied
 * subject was, said by the clause's verb, with no second clause between ("nothing was done about
 * the broken heater", "nobody answered and the order was missing" complain).
 */
function subjectDenied(scoped: { word: string; distance: number }[], i: number, distance: number): boolean {
  const negator = scoped[i - distance]?.word ?? '';
  const between = scoped.slice(i - distance + 1, i).map((s) => s.word);
  // "Nothing about the ID check was intrusive": "about" right after the negator names the subject.
  if (
    between.some(
      (w, k) =>
        /^(?:and|but|so|yet|or|because|while|about|done|why|what|how|when|where|who|which|that|if)$/.test(w) &&
        !(w === 'about' && k === 0),
    )
  )
    return false;
  // "Not a single order went missing", "not once did the app crash", "never once froze": an
  // emphatic denial covers its clause, as "none" does.
  if (/^(?:not|never)$/.test(negator) && /^(?:once|one|single|a single)\b/.test(between.slice(0, 2).join(' ')))
    return true;
  // "At no point did the waiters make me feel ignored" ("never did the waiters …"): an inverted
  // clause is denied whole. (Not "never did get my refund": no subject after the verb.)
  if (
    negator === 'never' &&
    /^(?:did|does|do|has|have|had|was|were|is|are|will|would)$/.test(between[0] ?? '') &&
    /^(?:the|my|our|their|they|he|she|it|we|i|anyone|anybody|a|an|any)$/.test(between[1] ?? '')
  )
    return true;
  if (!/^(?:nothing|nobody)$/.test(negator)) return false;
  // "Nobody at the desk tried to upsell me": the verb before "to".
  const verb = between.at(-1) === 'to' ? between.at(-2) : between.at(-1);
  return /^(?:was|were|is|are|been|got|gets|went|goes|seemed|felt|feel|looked|arrived|came|tried|tries|attempted)$/.test(
    verb ?? '',
  );
}

/**
 * Trouble expected ("went in expecting problems", "braced myself for chaos"): named, not had. The
 * denial that follows is what happened ("… couldn't find anything wrong").
 */
const TROUBLE_EXPECTED =
  /\b(?:expect(?:ing|ed)|fear(?:ing|ed)|brac(?:ing|ed) (?:myself |ourselves )?for|worried about|prepared for|dread(?:ing|ed))\s+(?:(?:a|an|the|some|lots of|loads of|more|the usual|all sorts of)\s+)?(?:[\p{L}-]+\s+){0,2}?(?:problems?|issues?|trouble|worst|nightmare|chaos|delays?|hassle|headaches?|disaster|glitches|bugs|drama|mess|queues?|fuss|errors?|mistakes?|faults?|outages?|crashes|breakdowns?|failures?)\b/giu;

/** Other people's complaints told as what they post ("people only post the bad stuff"). */
const OTHERS_POST_BAD =
  /\b(?:people|others|everyone|everybody|folks|reviewers) (?:only |always |usually |mostly )?(?:post|write|share|mention|talk about|focus on|review) (?:about )?(?:the )?(?:bad|negative|worst|horror)\b(?: (?:stuff|things|bits|experiences|stories|reviews))?/giu;

const FAULT_NOT_FOUND =
  /\b(?:tried|try|trying|looked|looking|searched|searching)\b[^.!?]{0,30}\bto find (?:something|anything|a (?:single )?(?:fault|flaw|problem|thing|complaint)|fault)\b[^.!?]{0,40}[.!?,…—-]+\s*(?:but\s+)?(?:i\s+)?(?:couldn['’]?t|can['’]?t|could not|cannot|nope|nothing|failed)\b/iu;
/** What can come cold and should not: food, drink, a room, a shower. */
const COLD_THINGS =
  /^(?:meals?|food|dish(?:es)?|coffee|tea|rooms?|showers?|water|pizza|chips|fries|soup|burgers?|steak|plates?|breakfast|dinner|lunch|takeaway|curry|pasta|radiators?)$/;

/** What names a wait, before "long" ("the queue at the pharmacy is rarely long"). */
const WAITING = /^(?:queues?|waits?|lines?|delays?|hold|waiting)$/;

/** Other people's complaints ("dunno why people moan about it"): not what the writer complains of. */
const OTHERS_COMPLAIN =
  /\b(?:people|others|everyone|everybody|folks|reviewers|some(?: people)?|they) (?:\p{L}+ )?(?:moan|complain|grumble|whinge|whine)\w*\b/giu;

/**
 * Hedges before a complaint: "don't take this the wrong way", "no offence", "I hate to be that
 * person". Their negators deny nothing the writer complains of.
 */
export const HEDGE = String.raw`(?:please )?don['’]?t take (?:this|it) the wrong way|no offen[cs]e(?: intended| meant)?|not to be (?:difficult|rude|picky|funny|a pain)|(?:i )?don['’]?t (?:mean|want) to be (?:rude|difficult|picky|a pain|a nuisance)|(?:i )?hate to be that (?:person|guy|customer)|(?:i )?don['’]?t want to make a fuss|sorry to be a (?:pain|nuisance)|(?:i )?hope you don['’]?t mind me saying|sorry if (?:this|that|i) (?:sounds?|seems?|am|is|comes? across as) (?:a bit |a little )?(?:picky|petty|fussy|pedantic|silly|nitpicky)|not complaining(?: exactly| as such)?`;
export const HEDGE_ALL = new RegExp(String.raw`\b(?:${HEDGE})\b`, 'giu');

/** "free of", "the lack of": read as "no" (replace resets a global pattern's lastIndex). */
const ABSENT_WORDS = new RegExp(String.raw`\b(?:${ABSENCE})\b`, 'giu');

export function deniedComplaint(message: string): 1 | 0 {
  if (words(message) > SHORT_WORDS) return 0;
  // "Don't waste your time", "don't bother": advice against, not a complaint denied.
  if (WARNING.test(message)) return 0;
  // "Free of the errors I feared" denies as "no" does; "rarely crowded" as "hardly" does.
  const text = message
    // (Not the hedges: "I don't want to make a fuss" denies nothing the writer complains of.)
    .replace(HEDGE_ALL, ' ')
    .replace(ABSENT_WORDS, 'no')
    .replace(/\b(?:rarely|seldom)\b/giu, 'hardly')
    // "No one at the desk was rude" as "nobody"; "I've yet to see a cold meal" as "never"; "it's not
    // like the old days when it kept overcharging me" as "no longer".
    .replace(/\bno[- ]one\b/giu, 'nobody')
    .replace(
      /\b(?:(?:have|has|had|am|are|is)\s+|(?<=\p{L})['’](?:ve|s)\s+)?yet to(?=\s+(?:come across|see|find|experience|encounter|have|meet|notice|run into|hit|suffer|face|spot)\b)/giu,
      ' never',
    )
    .replace(/\bnot like (?:the old days|before|it used to be|last (?:year|time))\b(?:\s+when)?/giu, 'no longer')
    // "At no point did the staff make me feel ignored" as "never … felt ignored"; "nothing's gone wrong" as "nothing has".
    .replace(/\bat no (?:point|time|stage)\b/giu, 'never')
    .replace(/\b(?:make|made|makes|making) (?:me|us) feel\b/giu, 'felt')
    .replace(/\bnothing['’]s\b/giu, 'nothing has')
    // "didn't break the bank": an idiom of price; "the waiting room" is a room, not a wait; "still no
    // reason to complain" is no "still no way to …".
    .replace(/\bbreak(?:s|ing)? the bank\b/giu, 'overcharge')
    .replace(/\bwaiting (?=rooms?\b|areas?\b|lounges?\b)/giu, '')
    .replace(
      /\bstill (?=(?:no|zero|not a single|not one) (?:reason|cause|need|complaints?|problems?|issues?|hiccups?)\b)/giu,
      '',
    )
    .replace(TROUBLE_EXPECTED, ' ')
    .replace(OTHERS_COMPLAIN, ' ')
    .replace(OTHERS_POST_BAD, ' ')
    // "Asked my wife if they've ever had trouble with them. Answer: 'No, never.'": a question asked.
    .replace(/(\b(?:asked|asks|asking|wondered|wondering)\b[^.!?]{0,80}?\b(?:if|whether)\b[^.!?]*?)(?:\.+|…)/giu, '$1?')
    // "didn't arrive scratched like I feared": the fear is no complaint of its own.
    .replace(/\b(?:like|as) (?:i|we) (?:had )?(?:feared|expected|worried|thought)\b/giu, ' ');
  // "Tried really hard to find something to moan about. Couldn't.": a fault looked for, not found.
  if (FAULT_NOT_FOUND.test(text) || FEAR_UNREALISED.test(message)) return 1;
  // "Did you have any problems with the signal? No, none whatsoever.": a complaint asked about, denied.
  // (Or a short answer of no between questions: "Any outages? None. Would I use it again? Definitely.")
  const answered = text.match(ANSWERED_NO) ?? text.match(ANSWERED_NO_SHORT);
  if (answered) {
    const asked = text.slice(0, answered.index);
    return FAILURE.test(asked) ||
      /\b(?:break|go wrong|problems?|issues?|trouble|surprises?|hiccups?|complaints?|delays?)\b/iu.test(asked) ||
      wordTokens(asked).some((t) => complaint(t) && !INTENTION_WORD.test(t))
      ? 1
      : 0;
  }
  if (/\?/.test(text)) return 0;
  const since = text.match(NOT_SINCE_LONG);
  // What has not happened for long: the rest of its clause, a failure or a complaint.
  const unseen = since ? text.slice(since.index! + since[0].length).split(/[,;.!]/)[0] : '';
  if (since && (FAILURE.test(unseen) || lean(unseen) <= -CLEAR)) return 1;
  // "the double charge is no longer happening": a failure or complaint that has ended.
  const ended = text.match(ENDED_FAILURE);
  if (ended) {
    const before = text.slice(0, ended.index);
    if (FAILURE.test(before) || wordTokens(before).some((t) => complaint(t) && !INTENTION_WORD.test(t))) return 1;
  }
  // "won't stop crashing", "still no way to undo": the failure goes on.
  if (/(?:n['’]?t|\bnot|\bnever|\bno) (?:stop|stops|stopped|quit)\b|\bstill\b/iu.test(text)) return 0;
  // "can't stand how slow it is", "couldn't believe how bad": a negator that says the complaint.
  // "can't get an appointment", "couldn't reach anyone": a negator that says the failure.
  if (
    /\b(?:can['’]?t|cannot|could(?:n['’]?t| not)) (?:stand|bear|believe|handle|take|get|find(?!\s+(?:anything|any|a (?:single )?(?:fault|flaw|problem|thing|complaint)|fault))|reach|book|access)\b/iu.test(
      text,
    )
  )
    return 0;
  // "The bill was anything but inflated": the complaint denied.
  const butComplaint = text.match(/\banything but (\p{L}+)/iu);
  if (butComplaint && complaint(butComplaint[1].toLowerCase())) return 1;
  // "nothing was done about the broken heater": nothing done is the complaint.
  if (/\bnothing (?:was|has been|is being|got|gets|is|will be) (?:ever )?done\b/iu.test(text)) return 0;
  const scoped = scopedWords(text);
  let denied = 0;
  let plain = 0;
  scoped.forEach(({ word: raw, distance }, i) => {
    // The negator that opens a scope is no failure of its own: "can't" of "I can't say it was bad".
    if (scoped[i + 1]?.distance === 1) return;
    // "isn't too high", "not too steep": "too" and a size is a complaint.
    const next = scoped[i + 1]?.word;
    // "no hidden fees", "wasn't higher than expected", "didn't have to wait long": phrases of complaint.
    const phrase =
      (raw === 'too' && next && TOO_MUCH.test(next)) ||
      // ("no hidden service charges": one word between.)
      (raw === 'hidden' &&
        [next, scoped[i + 2]?.word].some((w) => w !== undefined && /^(?:fees?|charges?|costs?|extras?)$/.test(w))) ||
      // "has never cut off my supply", "never cut my line off".
      (/^(?:cut|cuts|cutting)$/.test(raw) && scoped.slice(i + 1, i + 5).some((s) => s.word === 'off')) ||
      // "the fees at the hotel aren't hidden".
      (raw === 'hidden' &&
        scoped.slice(Math.max(0, i - 6), i).some((s) => /^(?:fees?|charges?|costs?|extras?|prices?)$/.test(s.word))) ||
      (/^(?:higher|longer|bigger|worse|steeper|slower)$/.test(raw) && next === 'than') ||
      (/^(?:wait|waited|queue|queued)$/.test(raw) && next && /^(?:long|ages|forever)$/.test(next)) ||
      // "doesn't drop out", "not once did my signal drop": a connection dropping.
      (/^drops?$/.test(raw) &&
        (next === 'out' ||
          (next === undefined &&
            scoped
              .slice(Math.max(0, i - 3), i)
              .some((s) =>
                /^(?:signal|connection|calls?|wifi|line|internet|stream|broadband|network|service)$/.test(s.word),
              )))) ||
      // "the queue is rarely long", "hardly any wait": a wait that is long, or any wait at all.
      (raw === 'long' && scoped.slice(Math.max(0, i - 6), i).some((s) => WAITING.test(s.word))) ||
      (/^(?:wait|waits|queue|queues)$/.test(raw) && /^(?:any|no|zero)$/.test(scoped[i - 1]?.word ?? '')) ||
      // "no long waits", "hardly any cancelled classes": a wait that was long, a thing cancelled.
      (raw === 'long' && next && /^(?:waits?|queues?|delays?|lines|holds?)$/.test(next)) ||
      (/^cancell?ed$/.test(raw) && next && /\p{L}s$/u.test(next) && !/^(?:us|was|has|its|his|this)$/.test(next)) ||
      // "didn't have to wait", "never had to queue": the waiting itself.
      (/^(?:wait|queue|chase)$/.test(raw) &&
        scoped[i - 1]?.word === 'to' &&
        /^(?:have|has|had)$/.test(scoped[i - 2]?.word ?? ''));
    const word =
      phrase ||
      // "no surprise charges", "kept me on hold", "not a single cold meal", "not once has it cancelled a flight".
      (raw === 'surprise' && next && /^(?:charges?|bills?|fees?|costs?|hikes?|increases?|extras?)$/.test(next)) ||
      (raw === 'hold' && scoped[i - 1]?.word === 'on') ||
      (raw === 'cold' &&
        next &&
        /^(?:meals?|food|dish(?:es)?|coffee|tea|rooms?|showers?|water|pizza|chips|fries)$/.test(next)) ||
      // "the food wasn't cold at all", "not a single dish … came out cold": what was cold is named before.
      (raw === 'cold' && scoped.slice(Math.max(0, i - 6), i).some((s) => COLD_THINGS.test(s.word))) ||
      (/^cancell?ed$/.test(raw) &&
        /^(?:a|an|the|my|our|any)$/.test(next ?? '') &&
        /^(?:flights?|trains?|class(?:es)?|appointments?|orders?|bookings?|reservations?|deliver(?:y|ies)|sessions?|lessons?)$/.test(
          scoped[i + 2]?.word ?? '',
        ))
        ? 'unbearable'
        : raw;
    // "I don't think the new checkout is buggy", "I'd never call it slow": a verb of opinion passes the
    // negation to the clause it opens (negative raising), so that clause gets its own reach.
    // ("Nobody could call the guide broken": a modal before the verb of opinion.)
    const opensAt = Number.isFinite(distance) ? i - distance + 1 : -1;
    const opens =
      opensAt < 0
        ? undefined
        : /^(?:could|would|can|will|ever|really|honestly)$/.test(scoped[opensAt]?.word ?? '')
          ? scoped[opensAt + 1]?.word
          : scoped[opensAt]?.word;
    // "None of my parcels from QuickDrop have gone missing", "neither the food nor the service
    // disappointed", "nothing in the bag was leaking", "nobody at the desk was rude": a negated
    // subject denies its whole clause.
    const negator = Number.isFinite(distance) ? scoped[i - distance]?.word : undefined;
    // "I no longer have any game-breaking bugs", "hardly any dropped calls": what "any" opens, up
    // to four words on, is what the negator denies, however far from it.
    // Only the words of its noun phrase: "didn't get any refund for the cancelled flights" ends at "for".
    const opened = scoped.slice(Math.max(i - 4, i - distance + 1), i).map((s) => s.word);
    const afterAny =
      Number.isFinite(distance) &&
      (opened.includes('any') || opened.includes('single')) &&
      !opened
        .slice(Math.max(opened.lastIndexOf('any'), opened.lastIndexOf('single')) + 1)
        .some((w) => /^(?:for|on|in|at|with|about|from|of|to|the|a|an|my|our|their|and|or|but)$/.test(w));
    const reach =
      negator && (/^(?:none|neither|nor)$/.test(negator) || subjectDenied(scoped, i, distance) || afterAny)
        ? Infinity
        : opens && RAISING.test(opens)
          ? COMPLAINT_REACH + 5
          : COMPLAINT_REACH;
    if (distance <= reach) {
      if (praise(word)) denied = -Infinity;
      // "no need for a refund", "not cancelling": an intention denied is no praise. A failure word
      // the lexicons rate mildly ("no delay") is a complaint denied too.
      if (
        (complaint(word) ||
          // Close to its negator only: "isn't light and it freezes" denies the lightness alone.
          (FAILURE_WORD.test(word) &&
            (distance <= 2 || reach === Infinity) &&
            !/^(?:another|again|nothing|gone|cold|late|down)$/.test(word))) &&
        !INTENTION_WORD.test(word)
      )
        denied++;
    } else if (
      complaint(word) ||
      (distance === Infinity &&
        FAILURE.test(word) &&
        !/^(?:another|again|nothing)$/.test(word) &&
        !PRICE_NOUN.test(word))
    )
      plain++;
  });
  return denied > 0 && plain === 0 ? 1 : 0;
}

/**
 * "Never been so angry in my life", "never seen such a mess", "I have never had better service": a
 * "never" that compares, not one that denies. The message leans as its words do without it.
 */
const EMPHATIC_NEVER =
  /\bnever (?:(?:have|had|ever)\s+)?(?:been|felt|seen|had|experienced|met|dealt with|encountered|received|tasted|eaten)\s+(?:so|such|this|a (?:more|worse|better)|worse|better|more)\b/iu;

export function emphaticNever(text: string, reader?: ReaderLean): -1 | 1 | 0 {
  if (/\?/.test(text) || words(text) > SHORT_WORDS || !EMPHATIC_NEVER.test(text)) return 0;
  return signOf(lean(text.replace(/\bnever\b/giu, ''), reader));
}
