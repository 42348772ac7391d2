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
 */
import vader from 'vader-sentiment';
import { lexiconReading, ownValence } from './lexicon.js';
import { VADER_LEXICON } from './lexicon-words.js';
import { negationDistances, wordTokens } from './word-features.js';

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
    | 'denied complaint'
    | 'emphatic never'
    | 'praise idiom'
    | 'plain praise'
    | 'clear praise'
    | 'expectation denied';
};

/**
 * How a stretch of text leans, in about [-3, 3]: our lexicon (the domain's phrases), VADER (the
 * language's words, with its negation rules) and, when given, the trained word reader (which knows
 * the corpus' words and their misspellings: P(positive) − P(negative) of the stretch alone).
 */
export type ReaderLean = (text: string) => number;
export function lean(text: string, reader?: ReaderLean): number {
  const own = lexiconReading(text).score;
  const v = vader.SentimentIntensityAnalyzer.polarity_scores(text).compound;
  const extra = (text.toLowerCase().match(/\p{L}+/gu) ?? []).reduce(
    (sum, w) => sum + (MORE_PRAISE.has(w) ? 0.5 : MORE_COMPLAINT.has(w) ? -0.5 : 0),
    0,
  );
  // The reader at half weight: on a clause alone it is less sure than on the message it learned from.
  return own + v + extra + (reader ? 0.5 * reader(text) : 0);
}

/**
 * The message without its envelope: a greeting ("Hi team,", "Good morning,"), a subject or
 * reference line ending in a dash or colon ("Re: invoice —", "Case #123 —", "Billing:"), with its
 * title when a greeting follows ("Subject: Thank you! Hello, …": the title is no praise) and a
 * sign-off ("— Lucia", "Thanks, Ana"), which tickets and emails wrap around what is said.
 */
const GREETING = /^\W*(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|greetings)\b[^,.!\n]{0,30}[,.!\n]\s*/iu;
const SUBJECT =
  /^[^.!?\n—–]{1,40}?\s(?:—|–|-{1,2})\s+|^(?:re|fwd?|subject|ticket|case)\b[^:\n]{0,30}:\s*(?:[^\n]{1,50}?[.!?]?\s+(?=(?:hi|hello|hey|dear|good (?:morning|afternoon|evening)|greetings)\b))?/iu;
const SIGN_OFF =
  /\s*(?:(?:—|–|-{1,2})\s*\p{L}+|(?:thanks|thank you|(?:kind |best |warm |warmest )?regards|yours (?:sincerely|faithfully|truly)|best|cheers)[,!]?\s+\p{L}+)\.?\s*$/iu;
export function core(text: string): string {
  let t = text.trim();
  for (let k = 0; k < 2; k++)
    t = t
      .replace(SUBJECT, '')
      .replace(GREETING, '')
      .replace(/^(?:@user\s+)+/u, '');
  const signed = t.replace(SIGN_OFF, '');
  return words(signed) >= 2 ? signed.trim() : t;
}

/** A stretch leans one way when the lexicons together say so by this much. */
const CLEAR = 0.25;
const signOf = (x: number): -1 | 0 | 1 => (x >= CLEAR ? 1 : x <= -CLEAR ? -1 : 0);

/** "Although X, Y": a fronted concession whose main clause follows the first comma. */
const CONCESSION = /^\W*(?:even though|although|though|while|whilst|despite|in spite of)\b([^,;]+)[,;]\s*(.+)$/iu;
/**
 * Markers after which the later part carries the verdict. "not only … but" and "nothing but" are
 * not contrasts, and "but" right after "all" ("all but") is a quantity. "Still," and "in the end,"
 * turn only where a sentence or clause opens with them ("it still crashes" is no turn).
 */
const MARKER =
  /(?<!\bnot only\b[^,.;]*)(?<!\b(?:nothing|all|anything)\s)\b(?:bu+t|however|yet|until|whereas|except that|that said|unfortunately|sadly|these days|lately|nowadays|since then|turn(?:s|ed) out|on the other hand)\b|(?<=\b(?:at first|initially|originally|used to|in the beginning|before)\b.*)\b(?:now|then)\b|(?<=(?:^|[.!?;,—–-])\s*)\b(?:still|even so|nonetheless|nevertheless|all the same|regardless|in the end|overall)(?=\s*,)|\beven so\b/giu;

/**
 * A short two-part contrast is judged by its later part; a longer message weighs more than two
 * clauses (the corpus' labelling rule), so the rule leaves it to the stack.
 */
const SHORT_WORDS = 30;
const SHORT_SENTENCES = 2;

/** The two parts of a short contrast, or undefined when the message has none (or its later part is under two words). */
export function contrastParts(text: string): [string, string] | undefined {
  if (words(text) > SHORT_WORDS || (text.match(/[.!?]+(?:\s|$)/g) ?? []).length > SHORT_SENTENCES) return undefined;
  const c = text.match(CONCESSION);
  if (c && words(c[2]) >= 2) return [c[1], c[2]];
  // "The rooms are modern; the showers are cold though.": a closing "though" turns the last clause.
  const t = text.match(CLOSING_THOUGH);
  // A softened caveat ("a bit pricey though") qualifies the message; it does not turn it.
  if (t && words(t[1]) >= 1 && words(t[2]) >= 2 && !SOFTENED.test(t[2])) return [t[1], t[2]];
  let at = -1;
  let end = -1;
  // The last marker with a later part to judge: "at first, but it's bad now" turns at "but", not
  // at the closing "now".
  for (const m of text.matchAll(MARKER)) {
    if (words(text.slice(m.index! + m[0].length)) >= 2) [at, end] = [m.index!, m.index! + m[0].length];
  }
  if (at < 0) return undefined;
  const after = text.slice(end);
  const before = text.slice(0, at);
  return words(after) >= 2 && words(before) >= 1 ? [before, after] : undefined;
}

/**
 * A stretch's length in words, every 20 characters counting as at least one. The rules are for
 * short messages, and some of their patterns (the contrast markers' lookbehinds, "only N times")
 * take time that grows with the square of the length: a single 10,000-letter "word" must not pass
 * for a short message (it took seconds of the worker's main thread; composition.test.ts bounds it).
 */
const CHARS_A_WORD = 20;
const words = (s: string) => Math.max((s.match(/\p{L}+/gu) ?? []).length, Math.ceil(s.length / CHARS_A_WORD));
/** A last clause closed by "though" (after a comma, semicolon or full stop): the turn of a two-part message. */
const SOFTENED = /\b(?:a (?:bit|little|tad|touch)|bit|slightly|somewhat|mildly|kinda|kind of|sort of|a few|minor)\b/iu;
const CLOSING_THOUGH = /^(.+?)[,;.!]\s*([^,;.!?]+?)\s*,?\s+though\W*$/iu;

/** How near a negator a praise word must be to count as denied ("I wouldn't call the desktop app user friendly"). */
const DENIAL_REACH = 6;
/**
 * Words both lexicons rate as positive that are not praise of the product when denied: "couldn't
 * help", "don't like to ask", "not sure", "not free", "no thanks", "don't want to".
 */
const NOT_PRAISE = new Set([
  'help',
  // "customer support was far from great": the team's name, not praise.
  'support',
  'like',
  'want',
  'sure',
  'free',
  'thank',
  'thanks',
  'please',
  'ok',
  'okay',
  'yes',
  'wish',
  'care',
  'fix',
  'fixed',
  'justify',
  'worth',
  'better',
  'hope',
  'interested',
  'ready',
  'agree',
  'safe',
  'true',
  'clear',
  'improve',
  'improved',
  'lol',
  'haha',
  'lmao',
  'honest',
  'honestly',
  'frankly',
  'really',
  'actually',
  'truly',
  // Intensifiers VADER rates as praise: "Definitely not reasonable!" praises nothing.
  'definitely',
  'certainly',
  'absolutely',
  'surely',
]);
/**
 * Praise and complaint words of software reviews that neither lexicon rates (VADER has no
 * "dependable", ours no "accurate"); used only by these rules, so the readers' features stay as
 * trained.
 */
const MORE_PRAISE = new Set([
  // Won over (after the dev15 read set).
  'hooked',
  'dependable',
  'accurate',
  'consistent',
  'responsive',
  'polished',
  'snappy',
  'speedy',
  'effortless',
  'trustworthy',
  'stable',
  'robust',
  'worthwhile',
  'affordable',
  'reasonable',
  'fair',
  'usable',
  'readable',
  'straightforward',
  // Food, travel and places (heads v21): the trades beyond software.
  'tasty',
  'delicious',
  'punctual',
  'spacious',
  'comfy',
  'courteous',
  // Adjectives of everyday reviews neither lexicon rates (heads v21, after templates in the manner of
  // CheckList's own: "I don't think the app is buggy", "I can't say it was boring").
  'professional',
  'convenient',
]);
const MORE_COMPLAINT = new Set([
  'crashed',
  'froze',
  'frozen',
  'downtime',
  'outages',
  'glitchy',
  'unreasonable',
  'overcomplicated',
  'complicated',
  'hassle',
  'headache',
  'unbearable',
  'unusable',
  'slower',
  'laggy',
  'unstable',
  'unreliable',
  'unresponsive',
  'overpriced',
  'pricey',
  'dropping',
  'drops',
  'unable',
  'inaccurate',
  'wrong',
  // Food, travel, places and things (heads v21): complaints neither lexicon rates.
  'delayed',
  'late',
  'overcrowded',
  'overbooked',
  'undercooked',
  'overcooked',
  'soggy',
  'stale',
  'lukewarm',
  'mould',
  'mold',
  'mouldy',
  'moldy',
  'filthy',
  'noisy',
  'unhelpful',
  'buffering',
  'buffers',
  'faulty',
  'faults',
  'leaking',
  'broken',
  'damaged',
  'downhill',
  'cramped',
  'rushed',
  'chaotic',
  'fuss',
  'delays',
  // Manners, crowds and faults of devices (after the dev15 read set).
  'condescending',
  'dismissive',
  'impatient',
  'patronising',
  'patronizing',
  'pushy',
  'sticky',
  'crowded',
  'glitch',
  'glitches',
  'drain',
  'drains',
  'lag',
  'lags',
  // Anger, damage and faults of things, sound and screens (heads v21, after the dev5 read set).
  'fuming',
  'livid',
  'seething',
  'trash',
  'garbage',
  'smh',
  'torn',
  'cracked',
  'dented',
  'scratch',
  'scratches',
  'dent',
  'dents',
  'scuff',
  'scuffs',
  'stain',
  'stains',
  'scratched',
  'stained',
  'inaudible',
  'flicker',
  'flickers',
  'flickering',
  // Everyday review adjectives neither lexicon rates clearly enough (see MORE_PRAISE).
  'buggy',
  'boring',
  'mediocre',
  'tedious',
  'sloppy',
  'awkward',
  'atrocious',
  'subpar',
  'hideous',
  'inconvenient',
  'patchy',
  'spotty',
  'flaky',
  'steep',
  // Having to chase a company is a complaint ("didn't have to chase them once" denies one).
  'chase',
  'chasing',
]);
/** A word said as praise: our lexicon's (which knows "fast", "intuitive", "reliable") or VADER's clear ones. */
const praise = (word: string) =>
  !NOT_PRAISE.has(word) &&
  (MORE_PRAISE.has(word) || (ownValence(word) ?? 0) >= 0.3 || (VADER_LEXICON[word] ?? 0) >= 1.5);
const complaint = (word: string) =>
  MORE_COMPLAINT.has(word) || (ownValence(word) ?? 0) <= -0.3 || (VADER_LEXICON[word] ?? 0) <= -1.5;
/**
 * Negators that do not deny what follows: "couldn't be happier", "can't recommend it enough",
 * "never been better", "not only … but", "no doubt", "nothing but praise".
 */
const NOT_A_DENIAL =
  /\b(?:(?:could(?:n'?t| not)|can'?t|cannot) (?:be|have been|ask for|recommend|say enough|thank)\b[^.!?]*\b(?:happier|better|more|enough|easier|faster|smoother)\b|never (?:been|felt|looked|worked) better|not only|no doubt|nothing but (?:good|great|praise|positive)|never (?:once )?(?:let|lets|letting) (?:us|me) down|not (?:a|one) (?:single )?(?:problem|issue|complaint|hiccup))/iu;
/** "used to be great, not anymore": praise that has ended (the praise itself is outside the negator's scope). */
const ENDED = /\b(?:not|no|\p{L}+n['’]?t) (?:any ?more|any longer|longer)\b/giu;

const CONTRAST_WORD = new Set(['but', 'yet', 'though', 'although', 'however', 'just', 'only']);

/**
 * wordTokens' words, each with how far after the negator that opened its scope it stands (1 for
 * the word right after "not"), or Infinity outside a negation. A contrast word ends a scope
 * ("nothing fancy but reliable"), which wordTokens, ending scopes at punctuation only, does not.
 */
function scopedWords(text: string): { word: string; distance: number }[] {
  const tokens = wordTokens(text);
  const distances = negationDistances(tokens);
  let cut = false;
  return tokens.map((tok, i) => {
    const marked = tok.startsWith('NOT_');
    const word = marked ? tok.slice(4) : tok;
    // An unmarked word is a negator or outside any scope: a new scope starts uncut.
    if (!marked) cut = false;
    if (CONTRAST_WORD.has(word)) cut = true;
    return { word, distance: marked && !cut ? distances[i] : Infinity };
  });
}

/** Praise denied, nothing praised plainly and no complaint denied: -1; else 0. */
/** Idioms of praise withheld: "could have been better", "leaves a lot to be desired", "not all that good". */
const WITHHELD =
  /\bcould(?:['’]ve| have) been (?:a lot |much |way )?(?:better|faster|smoother|easier|clearer|cheaper|quicker)\b|\bleaves? (?:a lot|much|something) to be desired\b|\b(?:not|isn['’]?t|wasn['’]?t|aren['’]?t|weren['’]?t) (?:all )?that (?:great|good|impressive|special|helpful|useful)\b|\bnothing (?:special|to write home about)\b/iu;
export function deniedPraise(text: string, reader?: ReaderLean): -1 | 0 {
  if (NOT_A_DENIAL.test(text) || words(text) > SHORT_WORDS) return 0;
  if (WITHHELD.test(text)) return -1;
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
  for (const { word, distance } of scopedWords(text)) {
    if (distance <= DENIAL_REACH) {
      if (complaint(word)) denied = -Infinity; // a complaint denied: praise by understatement, not this shape
      if (praise(word)) denied++;
    } else if (praise(word)) plain++;
  }
  if (denied > 0 && plain === 0) return -1;
  // "used to be great, not anymore": the praise sits outside the negator's scope.
  const ended = text.replace(ENDED, '');
  if (ended !== text && /\bused to\b/i.test(text) && lean(ended, reader) >= CLEAR) return -1;
  return 0;
}

/** A short opening of praise before what happened. */
const PRAISE_OPENING =
  /^\W*(?:(?:oh|ah|ugh|wow|well|yay|just|so|really|truly|gotta|i|big|huge|many|a)\s+)*(?:great|wonderful|brilliant|fantastic|perfect|amazing|lovely|awesome|nice|cool|super|excellent|good|terrific|marvell?ous|splendid|fabulous|impressive|incredible|outstanding|superb|stellar|bravo|kudos|congrats|well done|lucky me|yay|woo-?hoo|hooray|five stars|5 stars|10\/10|ten out of ten|full marks|thrilled|delighted|overjoyed|ecstatic|stoked|way to go|nice going|(?:so |really )?impressed(?: by| with)?|nice one|top notch|best \p{L}+(?: \p{L}+){0,2} ever|love(?: it)?|loving(?: it)?|glad|thanks|thank you|thx|ty|cheers|just what (?:i|we) (?:needed|wanted)|exactly what (?:i|we) (?:needed|wanted)|what a (?:great|lovely|perfect|wonderful|fantastic|nice|pleasant) (?:time|day|moment|way|start|surprise))\b(?:\s+(?:job|work|stuff|news|one|a lot|so much|timing))?(?:\s+@\w+)?(?:\s*[,!.:…—-]+|(?<=\b(?:love|loving|adore|enjoy|enjoying|thrilled|delighted|stoked))\s+(?=\p{L}+ing\b)|\s+(?:i|we)\s+(?=paid|bought|booked|ordered|chose|picked|upgraded|signed)|\s+(?:how|that|when|for|on|in advance for|the way|to see)|\s+to\s+(?:the\s+|you\s+)?[\p{L}@]+(?:\s+\p{L}+)?\s+for|(?:\s+\p{L}+){1,2}\s*:)\s*/iu;
/** What happened: a failure. ("again" alone is not one: "nice, the reminders go out again".) */
const FAILURE =
  /\b(?:another|down|broke|broken|breaks|breaking|crash\w*|outage|lost|lose|losing|ate|deleted?|wiped|stopped|stop working|not working|doesn'?t work|fail\w*|error|logs? (?:me|us) out|froze|freez\w*|slower|worse|spinner|charged|charges|overcharg\w*|wip(?:e|ed|es|ing)|eras\w+|vanish\w*|disappear\w*|gone|missing|dropp\w*|bounced|declined|missed|delet\w*|cancell?(?:ing|ed) (?:my|our|the)|(?:someone|somebody|some(?:one|body) else)['’]s|(?:grinding|rattling|clicking|buzzing|burning|strange|weird|loud) (?:noise|sound|smell)|spark(?:s|ed|ing)|smok(?:e|ed|ing)|overheat\w*|cracked|(?:with|has|had) a (?:\w+ )?crack\b|shut (?:off|down) (?:my|our|the)|gave away|sold (?:me|us) (?:\w+ )?(?:mou?ldy|stale|broken|faulty|expired|fake)|serv(?:ed|ing) (?:me |us )?(?:\w+ )?(?:undercooked|raw|cold|stale|burnt)|out of (?:order|service|stock)|pending for|with no (?:updates?|explanations?|warning|notice|repl(?:y|ies)|responses?|refund|apology)|without (?:any )?(?:notice|warning|explanation|reply|response)|(?:went|gone) up by|(?:two|three|four|five|\d+) times (?:higher|more|the price)|still (?:not|isn['’]?t|doesn['’]?t|hasn['’]?t|haven['’]?t|waiting|broken|down|missing)|(?:is|are) still there|forg[oe]t\w*|(?:got|was|were|been) cancell?ed|damaged|(?:billed|invoiced) (?:\w+ )?(?:twice|double|again)|double[- ]billed|(?:bills?|prices?|fees?|rates?|premiums?|tariffs?) (?:have |has )?(?:gone up|went up|increased|doubled|tripled|shot up)|left (?:\w+ ){0,3}in the rain|given away|nothing|price (?:increase|hike)|unable|can'?t|delay(?:ed|s)?|buffer\w*|dies|died|dead|hung up|hangs? up|late|overbooked|double[- ]booked|downtime|cold|soggy|undercooked|stale|mou?ld\w*|dirty|rude|leak\w*|(?:did|does|do|is|was|were|are|wo)(?:n['’]?t| not) work\w*|never (?:works?|worked|loads?|loaded|arrives?|arrived|answers?|answered|syncs?|synced|saves?|saved|responds?|responded|replies|replied)|charg\w* (?:me|us) (?:twice|double|again)|double[- ]charg\w*|lock\w* (?:me|us) out|cut(?:ting|s)? (?:\w+ ){0,3}off|shut(?:ting|s)? (?:\w+ ){0,3}off|needs? (?:reboot|restart)\w*|rais\w* (?:the |our |my )?prices?|price ris\w+|(?:extra|hidden|surprise|admin) (?:\w+ )?(?:fees?|charges?)|(?:no|not (?:one|a single)|zero) (?:answers?|repl(?:y|ies)|responses?|call ?backs?)|(?:didn['’]?t|never) (?:turn|show)(?:ed)? up|just to (?:wait|stand|sit|queue|be told)|(?:wait(?:ed|ing)?|on hold|stuck|queu\w+|stand(?:ing)?) (?:\w+ ){0,4}?(?:for )?(?:\d+|an?|two|three|four|five|six|ten|forty|several) (?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?)|took (?:\w+ ){0,2}(?:weeks|months?|ages|forever)|(?:restart|reset|reboot)\w* (?:\w+ ){0,3}every|corrupt\w*|misspel\w*|misprint\w*|drops? out|(?:taken|charged|billed|debited|collected|deducted) (?:\w+ )?twice|wrong (?:size|colou?r|item|order|address|date|name|room|seat|car|model|part|bag|parcel|meal|dish|amount|price)|(?:a )?(?:hair|fly|bug|cockroach|insect|stone|plaster) in (?:my|the|our)|(?:thrown|tossed|chucked|dumped|left) (?:\w+ ){0,4}?(?:over the (?:fence|gate|wall|hedge))|(?:got|was|were|been|is|are) (?:\w+ )?(?:blocked|frozen|suspended|closed without)|(?:rais\w*|increas\w*|hik\w*|jump\w*|went up|gone up|rose|doubl\w*)\b[^.!?]{0,30}?\b(?:by )?\d+ ?%|\d+ ?% (?:higher|more|up|dearer|pricier)|(?:\d+|two|three|four|five|six|ten)[- ](?:hour|minute|day|week|month) (?:queue|wait|delay|hold|line)|(?:not a (?:single )?word|no word) of (?:apology|explanation|warning)|(?:bill\w*|charg\w*|invoic\w*) (?:me|us) for (?:\w+ ){0,3}(?:i|we) (?:had )?(?:removed|cancell?ed|returned|never|didn['’]?t|did not)|reek\w*|st[ia]nk\w*|(?:arriv\w*|came|deliver\w*|shipp\w*|sent)[^.!?]{0,30}? in pieces|smashed|shattered|flat (?:tyres?|tires?|battery)|marked (?:\w+ ){0,4}as (?:wrong|incorrect|missing|late|absent|unpaid|failed)|double (?:the|what) (?:usual|normal|quoted|agreed|advertised)|(?:nobody|no one|no-one) (?:seems to |seemed to )?cares?|logg(?:ed|ing) (?:me|us) out|kick(?:ed|ing|s)? (?:me|us) (?:out|off)|never (?:comes?|shows? up|turns? up)|(?:we|i) (?:never|didn['’]?t|did not) (?:order|ask|sign|book)\w*|(?:nobody|no one|no-one|never) (?:even )?apologi[sz]\w*|without (?:an? )?apology|hold(?:ing)? (?:my|our) (?:salary|money|funds|payment|card|account|wages)|(?:\d+|two|three|four|five|six|ten|twenty|thirty|forty|fifty|ninety) (?:minutes?|hours?|days?|weeks?|months?) (?:just )?to (?:get|find|reach|answer|load|deliver|fix|process|reply|respond|serve|board)|bumped (?:off|from)|disconnect\w*|reject\w*|throttl\w*|f[ae]ll(?:s|ing)? apart|falling apart|on the (?:tarmac|runway) for|out of sync|(?:seconds?|minutes?) behind|(?:water|power|heating|electricity|wi-?fi|internet|gas|hot water|signal) (?:is|was|went|has been|goes|keeps going) (?:off|out|down)|(?:went|sent|delivered|given) to (?:someone|somebody) else|power cuts?|blackouts?|taking (?:\w+ ){0,2}(?:weeks|months|days|hours|ages|forever) to|shut(?:ting|s)? (?:\w+ ){0,3}down|(?:under review|pending|processing|on hold|in transit|out for delivery) for (?:\d+|two|three|four|five|six|several|many) (?:days|weeks|months))\b/iu;

const SARCASM_CUE =
  /^\W*(great|perfect|wonderful|fantastic|brilliant|lovely|marvell?ous|terrific|awesome|fabulous|superb|excellent|amazing)[,.!…]+\s+(?:just|simply|really|absolutely)\s+\1\b|\beverything (?:but|except) the (?:one|only) (?:thing|time|day|part)\b|\bsaid no ?(?:one|body) ever\b|\bexactly what (?:every(?:one|body)|no ?(?:one|body)|we all|all of us) (?:asked|wanted|needed|hoped) for\b|\bliving the dream\b|\bnothing says (?:\p{L}+ ){0,2}like\b|\bsaid no (?:\p{L}+ ){0,2}ever\b|\bwho (?:even )?needs (?:a |an )?(?:working|functioning|reliable|fast|decent)\b|\bwho (?:even )?needs [^.!?]{2,50}\banyway\b|(?<!\b(?:thanks?|thank you|thank u|ty|appreciate (?:it|you|that))\s)\bso much for (?:the |your |their |my |our |all )?(?:["“'‘]|\p{L}+)|\byeah,? right\b|["“][^"”]{2,30}["”],? (?:they|he|she|you|it) (?:said|say|says|promised|claimed|called it)\b|\b(?:because|cause|yeah,?|oh yes,?|sure,?) (?:that|this) makes (?:total |perfect |complete )?sense\b|\bremind me (?:again )?why (?:i|we) (?:pay|chose|picked|stay|bother)|\bwhy would (?:anyone|anybody|you|i) want [^.!?]{2,60}\bwhen (?:they|you|we|i) (?:can|could) (?:have|get)\b|\b(?:great|perfect|ideal|recommend\w*|brilliant|fantastic|love it|amazing)\b[^.!?]{0,25}?\bif you (?:enjoy|like|love|fancy)\b|(?:^|\s)#(?:not|sarcasm)\b|\b(?:lovely|wonderful|great|amazing|fantastic|brilliant|delightful)\s+["“'‘][^"”'’]{2,30}["”'’]|["“'‘]\s*(?:fast|quick|express|helpful|premium|unlimited|reliable|free|instant|easy|simple|secure|smart|customer service|support|priority|guaranteed|24\/7)\s*["”'’]/iu;

/** A favourite pastime named: sarcasm when what follows is a failure. */
const HOBBY = /\bmy (?:new )?(?:favou?rite|fav) (?:hobby|pastime|sport|activity|game|part of the day)\b/iu;
/** Wishing for it again: sarcasm when what is wished for is a failure. */
const WOULD_AGAIN =
  /\b(?:would|'d|will) (?:love|like|enjoy|recommend|gladly|happily)\b([^.!?]*)\b(?:again|next time|every time)\b/iu;
/** Sarcasm is short: a longer message that opens with praise usually means it. */
const SARCASM_WORDS = 25;
/**
 * A closing of bare praise after what happened: "A three-hour delay. Fantastic service.", "The app
 * ate my notes again. Great job!" The praise is the whole last sentence, at most four words.
 */
const PRAISE_CLOSING =
  /(?:^|[.!?…]\s+|\s[—–-]\s*)(?:(?:oh|just|really|so|simply|absolutely|truly)\s+)?(?:great|fantastic|brilliant|wonderful|perfect|amazing|excellent|superb|lovely|awesome|stellar|outstanding|marvell?ous|terrific|fabulous|well done|good job|great job|nice one|nice|love it|thanks a lot|thanks|bravo|kudos|top notch|five stars|5 stars|impressive|genius|classy|marvellous)(?:\s+(?:service|job|work|stuff|experience|support|team|company|airline|app))?(?:,?\s+(?:as always|as usual|as ever|once again|yet again|again|today|guys|team|truly|really|indeed|honestly))?\W*$/iu;

/** Praise that means its opposite beside a failure: closers, thanks, "the part where", "amazing at". */
const SARCASTIC_CLOSER =
  /\b(?:at its (?:finest|best)|(?:the )?highlight of my|(?:really |truly )?made my (?:day|week|morning|evening|night|year|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(?:my |their |his |her )?(?:absolute |new |very )?favou?rite (?:thing|part|customer|hobby|pastime)|never change|i['’]?m (?:so |truly |really )?touched|(?:so|how) thoughtful|what a (?:treat|joy|delight)|(?:great|fantastic|brilliant|wonderful|excellent|perfect|amazing) use of my|(?:truly|really|very) impressive (?:work|stuff|job))/iu;
/**
 * Idioms of praise or contentment that English uses for irony beside a failure: "Exactly how I
 * wanted to spend my evening", "just what I needed", "never gets old", "impressive as always",
 * "money well spent", "you've really raised the bar", "best week ever", "well, that went great", an
 * eye-roll or upside-down face. Said of anything that went well they are praise, so they count
 * only with a failure told beside them.
 */
const IRONIC =
  /\b(?:exactly (?:how|what|where|the \p{L}+) (?:i|we) (?:(?:always )?wanted|hoped|was hoping|were hoping|needed|signed up for|asked for|planned|dreamed of|had in mind)|just what (?:i|we) (?:needed|wanted|was after)|never gets old|(?:impressive|stellar|brilliant|great|outstanding|excellent|classy|flawless|top|nice|fine)(?: work| job| stuff| service)?,? as (?:always|usual|ever)|stellar (?:work|job|service)|(?:a )?rare talent|raised the bar|outd(?:id|one) (?:themselves|yourselves|yourself|itself)|character[- ]building|truly unforgettable|money well spent|what a time to be (?:alive|a customer)|best \p{L}+(?: \p{L}+)? ever|that went (?:great|well|brilliantly|perfectly|swimmingly|smoothly)|(?:so|really|very) (?:glad|happy|pleased) (?:i|we) (?:paid|bought|booked|chose|signed up|upgraded|renewed)|genius|#blessed|#winning|what a (?:surprise|shock)|(?:big |what a |color me |colour me )?surprised?,? surprise|who (?:would have|would['’]?ve|could have) (?:thought|guessed)|who knew|shocker|how (?:lovely|nice|convenient|wonderful|delightful|fun|charming)|(?:so|super|really|very|how) convenient|the best part(?: is|:|\?| was)|(?:good|great|nice) to know|keep up the (?:good|great|amazing|fantastic) work|(?:totally|so|definitely|really) worth (?:it|the (?:money|wait|price|hassle))|world[- ]class|1[01]\/10,? would|(?:couldn['’]?t|could not|can['’]?t) be (?:happier|more (?:thrilled|pleased|delighted))|what (?:more|else) could (?:i|we|you|anyone) (?:ask|want|wish) for|way to go|nice going|love that for (?:me|us)|it['’]s the little things|best (?:\p{L}+ ){1,3}(?:i|we)['’]?(?:ve| have)? ever (?:spent|had|made|paid)|new (?:personal |world )?record|thanks for the (?:challenge|adventure|workout|lesson|character building)|nothing (?:beats|like|quite like|better than)|what would (?:life|i|we) (?:be|do) without|(?:now )?that['’]?s what (?:i|we) call|don['’]?t you (?:just )?love (?:it )?when|me neither|nothing better to do|just what (?:every|any|all) \p{L}+ (?:dreams? of|wants?|needs?|hopes? for)|(?:so|how|very) kind of (?:you|them)|keeping (?:life|things|me|us) (?:exciting|interesting|on (?:my|our) toes)|(?:really |truly )?(?:making|makes) my (?:day|week|morning|evening|night|year|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(?:amazing|great|brilliant|fantastic|wonderful|perfect|impressive)\W+(?:truly|just|simply|really|absolutely|so) (?:amazing|great|brilliant|fantastic|wonderful|perfect|impressive)|impressive (?:stuff|work|job)|(?:very|so|how|most) generous|(?:recommend|perfect|ideal|great) (?:it |this )?(?:to|for) anyone who (?:loves?|enjoys?|likes?)|if you (?:love|enjoy|like|fancy))\b|🙄|🙃|👏|😒|🤦/iu;
/** A short phrase in quotes (double, or single ones that open after a space: not an apostrophe). */
const SCARE_QUOTES = /["“][^"”]{2,30}["”]|(?:^|[\s(])['‘][^'’]{2,30}['’](?=[\s.,!?:;)]|$)/u;
/** "Amazing at closing my ticket without reading it": skill praised at a failure. */
const AMAZING_AT =
  /\b(?:amazing|brilliant|great|excellent|fantastic|impressive|so good|really good|very good) at \p{L}+ing\b[^.!?]*\bwithout (?:\p{L}+ing|any|even)\b/iu;
/** "It has only gone down eleven times this week": a count of failures called small. */
const ONLY_TIMES =
  /[^.!?]*\bonly\b[^.!?]{0,40}?\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|a dozen) times\b[^.!?]*/iu;
const THANKS_FOR =
  /\b(?:thanks?(?: (?:so|very) much| a (?:lot|million|bunch|ton))?|thank you(?: (?:so|very) much)?|can['’]?t thank (?:you|them|y['’]?all) enough|kudos|props|hats off|cheers|shout ?outs?|(?:five|5|ten|10) stars|(?:ten|10) out of (?:ten|10)|10\/10|full marks|gold star|round of applause)\b[^.!?]{0,40}?\bfor\b([^.!?]+)/iu;
const PART_WHERE =
  /\b(?:especially|particularly|loving|love|loved|enjoyed|favou?rite|best)\b[^.!?]{0,25}?\bthe (?:part|bit|moment|day|time) (?:where|when)\b([^.!?]+)/iu;
/**
 * A negator one or two words before what follows ("not a single outage", "never once crashed"):
 * "n't" with its apostrophe, or a known contraction typed without it ("dont", "wasnt"), never any
 * word that ends in "nt" ("restaurant", "urgent").
 */
const NEGATED_BEFORE =
  /\b(?:no|not|never|zero|without|\w+n['’]t|(?:do|does|did|is|are|was|were|has|have|had|could|would|should|wo|ca|must|need|ai)nt)\s+(?:\S+\s+)?$/iu;
/** The same, or a failure said to be smaller ("fewer crashes"). */
const DENIED_BEFORE = new RegExp(NEGATED_BEFORE.source.replace(')nt)', ')nt|less|fewer)'), 'iu');
/**
 * A service failing by a negated verb ("won't load", "hasn't sent a reading", "never sends
 * readings"), a utility gone for a time ("no hot water for three days"), a charge never incurred,
 * or a status in scare quotes that has lasted ("'processing' for a week"). Apart from FAILURE
 * because its negator is part of it: the denial checks of toldFailure would take it as denied.
 */
const SERVICE_FAILED =
  /\b(?:(?:no longer|not|never|\w+n['’]t|(?:do|does|did|is|are|was|were|has|have|wo|ca)nt)(?: been| be| yet| even| properly| correctly)? (?:answer\w*|arriv\w*|deliver\w*|load\w*|work\w*|open\w*|show\w* up|appear\w*|available|updat\w*|reflect\w*|processed|come|came|received?|refund\w*|credit\w*|connect\w*|sync\w*|start\w*|turn\w* up|respond\w*|repl\w*|call\w* back|went through|go(?:ne)? through|at my door|download\w*|install\w*|print\w*|send\w*|sent|pick\w* up|charg\w*|boot\w*|play\w*|stream\w*|lock\w*|clos\w*|turn\w* on|switch\w* on|accept\w*|scan\w*|log (?:me |us )?in|sign (?:me |us )?in)|(?:had |has |have |was |were |is |got )?no (?:hot )?(?:water|heating|power|signal|wi-?fi|internet|service|electricity|connection|aircon|air conditioning|phone line|tv) (?:for|since|all)|(?:fee|charge|penalty|fine|surcharge)s? (?:i|we) (?:never|didn['’]?t|did not) \p{L}+)\b|['‘"“]\p{L}+(?: \p{L}+)?['’"”] (?:for|since) (?:a|an|\d+|two|three|four|five|six|several|many) (?:hours?|days?|weeks?|months?)/iu;
/** Every failure of a stretch, compiled once (matchAll copies it, so its lastIndex is never shared). */
const FAILURE_ALL = new RegExp(FAILURE.source, 'giu');
/** A failure told in the stretch and neither denied nor mended. */
function toldFailure(stretch: string): boolean {
  // Mended, or being mended: "thank you for fixing the crash".
  if (MENDED.test(stretch) || MENDING.test(stretch)) return false;
  return undeniedFailures(stretch).length > 0;
}
/** The failures of a stretch that no negator before them denies, mended or not. */
function undeniedFailures(stretch: string): RegExpExecArray[] {
  return [...stretch.matchAll(FAILURE_ALL)].filter((m) => {
    if (/^(?:nothing|another|gone|again|can['’]?t)$/iu.test(m[0])) return false;
    const before = stretch.slice(0, m.index);
    // "Staying late to help us with the launch" is devotion, not lateness.
    if (/^late$/iu.test(m[0]) && /\b(?:stay|work|open)\w*\s+$/iu.test(before)) return false;
    if (DENIED_BEFORE.test(before)) return false;
    // A failure overcome is not the complaint: "world-class crew, even with the delay".
    if (
      /\b(?:despite|in spite of|even with|even when|even if|even after|regardless of|notwithstanding)\s+(?:\S+\s+){0,3}$/iu.test(
        before,
      )
    )
      return false;
    // Its own negator says the failure ("never comes", "won't load"); only one before it denies.
    if (/\b(?:never|no|not|\p{L}+n['’]t)\b/iu.test(m[0])) return true;
    return !wordTokens(before + m[0])
      .at(-1)
      ?.startsWith('NOT_');
  });
}

/** A praise opening (or closing), then (or before it) a failure neither denied nor mended: -1; else 0. */
export function sarcasm(text: string): -1 | 0 {
  if (/\bthanks? (?:a lot |so much )?for nothing\b/iu.test(text)) return -1;
  // "…, said no one ever", "exactly what everyone asked for", praise in scare quotes ('the "fast" delivery').
  if (SARCASM_CUE.test(text)) return -1;
  if (words(text) > SARCASM_WORDS) return 0;
  // "The dashboard is sooo intuitive... not.": praise taken back by a closing "not".
  if (
    /(?:\.{2,}|…|[,!—–-])\s*not[.!]*\s*$/iu.test(text) &&
    scopedWords(text).some(({ word, distance }) => distance === Infinity && praise(word))
  )
    return -1;
  // "My favourite hobby is rebooting the router every hour", "10/10 would love to be double booked again".
  const hobby = text.match(HOBBY);
  if (hobby && FAILURE.test(text.slice(hobby.index! + hobby[0].length))) return -1;
  // "Hollis & Reed never disappoints: my order got cancelled yet again." (the failure before or after).
  const never = text.match(/\b(?:you |they |it )?never (?:disappoints?|fails?|lets? (?:me|us) down)\b/iu);
  if (never && toldFailure(text.replace(never[0], ' '))) return -1;
  // "…. Customer care at its finest.", "Really made my Monday.", "My absolute favourite thing 🙃",
  // "thank you so much for deleting my coursework", "especially the bit where they froze my card",
  // "amazing at closing my ticket without reading it": praise that only a failure beside it explains.
  if (AMAZING_AT.test(text)) return -1;
  const only = text.match(ONLY_TIMES);
  if (only && toldFailure(only[0])) return -1;
  const closer = text.match(SARCASTIC_CLOSER);
  if (closer && toldFailure(text.replace(closer[0], ' '))) return -1;
  const thanked = text.match(THANKS_FOR);
  // What is thanked for, without the circumstances: "for staying late when the part arrived late".
  const thankedFor = thanked?.[1].split(/\b(?:when|after|because|since|despite|even though|while)\b/iu)[0] ?? '';
  // Not thanks for the refund itself ("thanks for the quick refund after the double charge"), nor
  // for a good thing ("thanks for your patience with my questions about the import error").
  if (
    thanked &&
    toldFailure(thankedFor) &&
    !/^\s*(?:the |a |my |your |our )?(?:\p{L}+ )?refund/iu.test(thankedFor) &&
    !/^\s*(?:all )?(?:your|the) (?:\p{L}+ )?(?:patience|help|support|time|understanding|assistance|advice|kindness|effort|work)\b/iu.test(
      thankedFor,
    )
  )
    return -1;
  // Scare quotes: 'the "careful handling" left my parcel crushed'.
  const quoted = text.match(SCARE_QUOTES);
  if (quoted && toldFailure(text) && wordTokens(quoted[0]).some((t) => praise(t))) return -1;
  const ironic = text.match(IRONIC);
  if (ironic) {
    const rest = text.replace(ironic[0], ' ');
    // A failure turned round after a marker is a story that ends well: "the first delivery was
    // missing the remote, but it turned up the next morning. Exactly what I wanted!"
    const turn = [...rest.matchAll(MARKER)].at(-1);
    const told = (stretch: string) => toldFailure(stretch) || SERVICE_FAILED.test(stretch);
    if (told(rest) && (!turn || told(rest.slice(turn.index! + turn[0].length)))) return -1;
  }
  const where = text.match(PART_WHERE);
  if (where && toldFailure(where[1])) return -1;
  const again = text.match(WOULD_AGAIN);
  if (again && FAILURE.test(again[1])) return -1;
  const closing = text.match(PRAISE_CLOSING);
  const m = text.match(PRAISE_OPENING);
  if ((!m || m[0].length === 0) && !closing) return 0;
  const rest = m && m[0].length > 0 ? text.slice(m[0].length) : text.slice(0, closing!.index);
  if (words(rest) < 2 || !(FAILURE.test(rest) || SERVICE_FAILED.test(rest))) return 0;
  // "My order was a bit late. That said, the dessert was amazing. Love it!": the closing praise
  // follows a turn to praise, and means it.
  const turn = [...rest.matchAll(MARKER)].at(-1);
  if (!m?.[0] && turn && signOf(lean(rest.slice(turn.index! + turn[0].length))) > 0) return 0;
  // "Thanks for the quick refund after the double charge": thanks for putting a failure right.
  if (m && /\b(?:thanks?|thank you|thx|ty|cheers)\b/iu.test(m[0]) && /\brefund/iu.test(rest)) return 0;
  // "Great, nothing crashed", "Thanks, the outage was fixed in minutes": a failure denied or mended.
  const deniedFailure = wordTokens(rest).some(
    (t) => t.startsWith('NOT_') && (complaint(t.slice(4)) || FAILURE.test(t.slice(4))),
  );
  if (deniedFailure || MENDED.test(rest) || MENDING.test(text)) return 0;
  // Not weighed by the lexicons: sarcasm often ends on more praise ("…, super helpful", "such a treat").
  return -1;
}

/**
 * Courtesy around a complaint: "it would be great if the sync actually worked", "we'd be grateful
 * if someone could finally fix the importer", "with respect, the update made it slower", "thanks in
 * advance for fixing the calls, they keep dropping". Courtesy words are praise to a lexicon; the
 * corpus' labelling rule says politeness does not lift a reported failure above -0.2.
 */
const COURTESY =
  /\b(?:politely|no rush|(?:i|we) (?:just )?want(?:ed)? to (?:flag|let you know|point out|mention|report)|appreciate|grateful|thankful|thanks in advance|with (?:all due )?respect|would be (?:great|nice|lovely|good|wonderful|amazing)|it'?d be (?:great|nice|lovely|good)|kindly|sorry to (?:bother|chase|trouble)|hate to (?:complain|chase|bother)|gentle reminder|regrettably|with regret|forgive me|(?:raise|raising|flag|flagging) (?:a |this |my )?concern|i['’]?m afraid|if it['’]?s not too much trouble|would you mind|i hope you (?:are|can)|thank you for your (?:time|understanding|patience|help)|much appreciated|i would be grateful|(?:i|we)(?: have)? always (?:valued|appreciated|loved|liked|enjoyed|trusted))\b/iu;
const COURTESY_ALL = new RegExp(COURTESY.source, 'giu');
/** "finally", "actually", "for once": the thing has not been working. (Not "please" or "still": calm requests use them.) */
const IMPATIENCE =
  /\b(?:finally (?:fix\w*|work\w*|sort\w*|answer\w*|repl\w*|respond\w*|resolve\w*|look\w* into|get (?:this|it) (?:fixed|working|right))|actually (?:work|works|worked|did|does|load|loaded|sync|synced|sent|saved)|for once|yet again|any time soon|once and for all)\b/iu;
export function politeComplaint(text: string, reader?: ReaderLean): -1 | 0 {
  if (MISMATCH.test(text) && COURTESY.test(text) && !/\?/.test(text)) return -1;
  if (!COURTESY.test(text) || words(text) > SHORT_WORDS) return 0;
  if (IMPATIENCE.test(text)) return -1;
  const failure = text.match(FAILURE);
  const rest = lean(text.replace(COURTESY_ALL, ' '), reader);
  if (rest >= CLEAR) return 0; // courtesy around praise: "really appreciate the clear pricing"
  // A failure named, or words that clearly complain (twice the lean of a clear stretch).
  // A failure denied is none: "really appreciate the clear pricing, no hidden fees".
  const denied = failure && /\b(?:no|not|never|zero|without)\s+(?:\S+\s+)?$/i.test(text.slice(0, failure.index));
  return (failure && !denied && !/^(?:nothing|another|gone)$/i.test(failure[0])) || rest <= -2 * CLEAR ? -1 : 0;
}

/**
 * A problem reported with a request for help, wrapped in courtesy: "Hi, my parcel was left behind
 * the fence and got wet. Could you look into it? Thanks so much!", "Big fan of the app, but I've run
 * into a snag: my certificate has my name spelled incorrectly. Any chance someone could take a
 * look? Thank you". Whoever asks for help with a problem is not praising, however warm the
 * envelope (greetings, thanks, "love your service"), which the lexicons and the stack read as
 * praise. Needs all three: courtesy, a request for help and a problem told (a failure neither denied
 * nor mended, or a word that names a problem), so "could you add dark mode? thanks!" (no problem)
 * and "thanks for fixing the login issue so fast" (mended, no request) are left alone.
 */
const HELP_ASKED =
  /\b(?:(?:could|can|would|will) (?:you|someone|somebody|anyone|your team|the team)(?: (?:please|kindly|possibly|maybe|perhaps))?(?: please| kindly)? (?:look into|look at|check|help|take a look|have a look|sort|fix|investigate|advise|confirm|explain|resolve|assist|correct|amend|reverse|reissue|update|let me know)|any chance (?:someone|somebody|you|your team|the team) (?:could|can|might)|would you be able to|(?:please|pls|kindly) (?:could you |can you )?(?:look into|check|help|advise|fix|sort|investigate|correct|amend|reverse|assist|get back to)|any help (?:would be|is|will be)|is (?:something|anything) (?:going on|wrong)|(?:what|how) (?:can|should|do) (?:i|we) (?:do about|fix|sort)|(?:i|we)(?:['’]d| would) (?:appreciate|be grateful for) (?:a fix|your help|some help|help|a reply|an update|a callback|a refund|a replacement|it if)|(?:i|we)(?:['’]ve| have) (?:run|hit|come) (?:into|across|up against) (?:a|an|one)(?: \p{L}+)? (?:snag|issue|problem|hiccup|glitch|bump)|would it be possible to|(?:could|can) you (?:have a look|dm me|message me|get back to me|call me)|would you mind (?:checking|looking|having a look|fixing|sorting)|(?:grateful|thankful) for (?:any|your) (?:help|assistance|support)|(?:i|we)(?:['’]d| would) (?:really |greatly |very much )?appreciate (?:your|any|some) (?:help|assistance|support)|(?:thank you|thanks)(?: kindly| so much| in advance)? for (?:looking into|checking|sorting|fixing|investigating|your help with)|whenever you get a chance|happy to (?:send|share|provide) (?:more |further |any )?(?:details|info|information|screenshots)|let (?:me|us) know if you need (?:anything|any|more|further)|thank you for your (?:time and )?(?:help|assistance)|just (?:a quick note|a heads[- ]up|letting you know|flagging|to let you know|wanted to (?:flag|let you know|report)) that|not sure if you['’]re aware|(?:i['’]?m|i am) writing (?:about|regarding|in regard to|to report))\b/iu;
const COURTESY_WORDS =
  /\b(?:thanks?|thank you|thx|ty|cheers|please|pls|kindly|appreciated?|grateful|regards|best wishes|hope (?:you['’]re|you are|you['’]re having|all is)|(?:big|huge) fan|(?:really |always )?(?:enjoy|love|loved|like)d?|lovely|wonderful|great)\b/iu;
/** Words that name a problem without a failure verb: "my name is spelled incorrectly", "billed twice". */
const PROBLEM =
  /\b(?:issues?|problems?|snag|glitch|bugs?|mistakes?|errors?|incorrect\w*|wrong\w*|twice|double|faulty|even though|despite|instead of|out of order|(?:warning|error) (?:light|message|code|sign)|still (?:show\w*|includ\w*|listed|pending|under review|charg\w*|waiting|says|on hold)|(?:closes|crashes|quits|freezes|shuts down) (?:immediately|straight away|instantly|on (?:launch|start\w*|open\w*))|but (?:i|we) (?:ordered|booked|paid for|asked for|requested|chose|selected)|(?:got|is|was|were|are|seems to be|seem to be|has been|have been) (?:all )?(?:wet|gone|cold|damaged|broken|stolen|lost|missing|soaked|crushed|dented|empty)|arrived (?:\w+ )?(?:cold|late|damaged|broken|open|opened|wet|crushed|leaking)|after the (?:estimated|expected|scheduled|promised|agreed|quoted) (?:time|date|window|slot)|warnings?|drops|keeps? (?:dropping|crashing|buffering|freezing|failing|logging|disconnecting)|(?:fee|charge|penalty|fine|surcharge)s? (?:on|to|in) my (?:statement|bill|account|invoice|card))\b/iu;
const PROBLEM_ALL = new RegExp(PROBLEM.source, 'giu');
export function helpWithProblem(text: string): -1 | 0 {
  if (!HELP_ASKED.test(text) || !COURTESY_WORDS.test(text)) return 0;
  // "Thanks in advance for sorting it out" asks for the mending; "thanks for sorting it" tells it.
  const asked = text.replace(/\bin advance for \p{L}+ing\b/giu, ' ');
  if (MENDED.test(asked) || MENDING.test(asked)) return 0;
  // A problem denied is none: "nothing wrong with the product, just fewer people".
  const problemTold = [...text.matchAll(PROBLEM_ALL)].some(
    (m) => !NEGATED_BEFORE.test(text.slice(0, m.index)) && !/\b(?:nothing|none)\s+$/iu.test(text.slice(0, m.index)),
  );
  return toldFailure(text) || SERVICE_FAILED.test(text) || problemTold ? -1 : 0;
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
const ANSWERED_NO =
  /\?["'”’]?\s*(?:\p{L}+\s*:\s*)?["'“‘]?\s*(?:no|nope|nah|not at all|not in my experience|not (?:really|once|for me|for us|so far|lately|anymore|this time)|none|never)\b(?!\s+(?:worries|problem|rush|hurry|thanks))[^?]{0,60}$/iu;
/** A failure that has ended ("no longer happening"; not "not happening", which is the complaint). */
const ENDED_FAILURE =
  /\b(?:is|are|was|were|has|have|seems?|appears?)(?: been)? no longer (?:happening|occurring|an issue|a problem|there|showing up|appearing|an? thing)\b|\b(?:has|have) (?:gone away|disappeared|stopped happening)\b/iu;
/** A single word FAILURE names ("delay", "missing", "lost"), tested whole. */
const FAILURE_WORD = new RegExp(`^(?:${FAILURE.source.slice(5, -3)})$`, 'iu');
/** Verbs of opinion that pass a negation on to the clause after them. */
const RAISING = /^(?:think|thought|say|said|call|find|found|feel|felt|believe|consider|reckon|suppose|expect)$/;
const TOO_MUCH = /^(?:high|steep|much|long|slow|expensive|pricey|complicated|hard|difficult|many)$/;
const INTENTION_WORD = /^(?:refund\w*|cancel\w*|disput\w*|charge\w*|leav\w*|switch\w*)$/;
/**
 * "Nothing in the bag was leaking", "nobody at the desk was rude": the word is what the denied
 * subject was, said by the clause's verb, with no second clause between ("nothing was done about
 * the broken heater", "nobody answered and the order was missing" complain).
 */
function subjectDenied(scoped: { word: string; distance: number }[], i: number, distance: number): boolean {
  const negator = scoped[i - distance]?.word ?? '';
  const between = scoped.slice(i - distance + 1, i).map((s) => s.word);
  if (
    between.some((w) =>
      /^(?:and|but|so|yet|or|because|while|about|done|why|what|how|when|where|who|which|that|if)$/.test(w),
    )
  )
    return false;
  // "Not a single order went missing", "not once did the app crash", "never once froze": an
  // emphatic denial covers its clause, as "none" does.
  if (/^(?:not|never)$/.test(negator) && /^(?:once|one|single|a single)\b/.test(between.slice(0, 2).join(' ')))
    return true;
  if (!/^(?:nothing|nobody)$/.test(negator)) return false;
  return /^(?:was|were|is|are|been|got|gets|went|goes|seemed|felt|looked|arrived|came)$/.test(between.at(-1) ?? '');
}
export function deniedComplaint(message: string): 1 | 0 {
  if (words(message) > SHORT_WORDS) return 0;
  // "Free of the errors I feared" denies as "no" does; "rarely crowded" as "hardly" does.
  const text = message
    .replace(/\b(?:free (?:of|from)|devoid of)\b/giu, 'no')
    .replace(/\b(?:rarely|seldom)\b/giu, 'hardly');
  // "Did you have any problems with the signal? No, none whatsoever.": a complaint asked about, denied.
  const answered = text.match(ANSWERED_NO);
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
  if (/\b(?:can['’]?t|cannot|could(?:n['’]?t| not)) (?:stand|bear|believe|handle|take)\b/iu.test(text)) return 0;
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
      (raw === 'hidden' && next && /^(?:fees?|charges?|costs?|extras?)$/.test(next)) ||
      (/^(?:higher|longer|bigger|worse|steeper|slower)$/.test(raw) && next === 'than') ||
      (/^(?:wait|waited|queue|queued)$/.test(raw) && next && /^(?:long|ages|forever)$/.test(next)) ||
      // "didn't have to wait", "never had to queue": the waiting itself.
      (/^(?:wait|queue|chase)$/.test(raw) &&
        scoped[i - 1]?.word === 'to' &&
        /^(?:have|has|had)$/.test(scoped[i - 2]?.word ?? ''));
    const word = phrase ? 'unbearable' : raw;
    // "I don't think the new checkout is buggy", "I'd never call it slow": a verb of opinion passes the
    // negation to the clause it opens (negative raising), so that clause gets its own reach.
    const opens = Number.isFinite(distance) ? scoped[i - distance + 1]?.word : undefined;
    // "None of my parcels from QuickDrop have gone missing", "neither the food nor the service
    // disappointed", "nothing in the bag was leaking", "nobody at the desk was rude": a negated
    // subject denies its whole clause.
    const negator = Number.isFinite(distance) ? scoped[i - distance]?.word : undefined;
    const reach =
      negator && (/^(?:none|neither|nor)$/.test(negator) || subjectDenied(scoped, i, distance))
        ? Infinity
        : opens && RAISING.test(opens)
          ? COMPLAINT_REACH + 3
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
      (distance === Infinity && FAILURE.test(word) && !/^(?:another|again|nothing)$/.test(word))
    )
      plain++;
  });
  return denied > 0 && plain === 0 ? 1 : 0;
}

/**
 * What came against what was ordered, booked or paid for: "ordered a large, got a medium", "booked
 * a double room, got two singles", "the room we booked with a sea view actually faces the car park",
 * "an invoice for a plan we never signed up for".
 */
const MISMATCH =
  /\b(?:ordered|booked|paid for|asked for|requested|reserved|bought|purchased)\b[^.!?]{1,80}?(?:(?:[,;—–]|\b(?:and|but|yet)\b)\s*(?:(?:i|we|they)\s+)?(?:only\s+)?(?:got|received|were given|was given|ended up with|sent (?:us|me)|gave (?:us|me))\b|\b(?:actually|instead)\b)|\binstead of (?:the |my |our |a |an )?(?:[\w'’-]+ ){0,4}(?:i|we) (?:ordered|paid for|booked|bought|asked for|requested|reserved)\b|\b(?:never|didn['’]?t|did not)\s+(?:order(?:ed)?|sign(?:ed)? up|ask(?:ed)? for|agree(?:d)? to|authori[sz]e(?:d)?|request(?:ed)?)\b/iu;
/** A mismatch told, not asked, and not told as good news ("booked a double, got a suite, amazing"): -1; else 0. */
export function mismatch(text: string, reader?: ReaderLean): -1 | 0 {
  if (/\?/.test(text) || words(text) > SHORT_WORDS || !MISMATCH.test(text)) return 0;
  return lean(text, reader) < CLEAR ? -1 : 0;
}

/**
 * A failure told plainly: "the engineer didn't turn up", "the app crashes on launch", "we were
 * charged twice", "my parcel went missing". Only a short statement with no praise said, nothing
 * mended, no question and the failure not denied; the stack reads such reports as positive when
 * their words are calm (v20: a third of the factual complaints of the held-out sets).
 */
const PLAIN_FAILURE =
  /\b(?:(?:didn['’]?t|never|did not) (?:turn|show)(?:ed)? up|no[- ]show|never (?:arrived|came|showed up|turned up)|hung up on|lock\w* (?:me|us) out|charg\w* (?:me |us )?(?:twice|double)|double[- ]charg\w*|(?:stopped|stops) working|(?:is|was|are|were)(?:n['’]?t| not) working|(?:doesn['’]?t|didn['’]?t|won['’]?t|does not|did not|will not|can['’]?t|cannot) (?:work|load|open|start|connect|sync|save|print|arrive|log in|sign in)|crash(?:es|ed|ing)?|outages?|broken|went missing|(?:is|are|was|were) missing|never (?:received|got)|(?:was|were|got) (?:lost|damaged|given away|cancell?ed|declined|forgotten|bounced)|(?:had |have |has |got )?no (?:mobile |phone |wifi |wi-fi |internet |hot )?(?:signal|service|internet|connection|power|electricity|water|heating|coverage|reception|wifi|wi-fi) (?:at (?!all)|in|since|for)|(?:torn|ripped|cracked|dented|faulty|defective|inaudible|flicker\w*)|flat (?:tyres?|tires?|battery)|smel(?:led|t|ls) of|(?:bills?|prices?|costs?|fees?|premiums?|tariffs?|rent) (?:have |has )?(?:doubled|tripled|gone up|went up|shot up|skyrocketed)|(?:same|identical) (?:\w+ ){0,2}(?:problem|issue|fault|error|bug|defect)|regret (?:ever )?(?:joining|booking|signing up|buying|choosing|ordering|switching|using|going|moving|subscribing|renting|staying|upgrading)|waited (?:for )?(?:over |almost |nearly |more than )?(?:an?|\d+|two|three|four|five|six) (?:hours?|days?|weeks?))\b/iu;
export function plainFailure(text: string): -1 | 0 {
  if (/\?/.test(text) || words(text) > SHORT_WORDS) return 0;
  const m = text.match(PLAIN_FAILURE);
  if (!m || MENDED.test(text)) return 0;
  // Denied ("never crashed", "no outage") or praise said plainly ("crashes less than the old one, love it").
  const before = text.slice(0, m.index);
  if (/\b(?:less|fewer|even with|despite|in spite of)\s+(?:\S+\s+)?$/i.test(before)) return 0;
  // Inside a negation opened before it ("not a single outage", "nothing was lost", "didn't crash once").
  const first = wordTokens(before + m[0]).at(-wordTokens(m[0]).length);
  if (first?.startsWith('NOT_') || /\bwhat (?:we|i|you)(?:['’]ve| have| were| was)? (?:been )?missing\b/i.test(text))
    return 0;
  return scopedWords(text).some(({ word, distance }) => distance === Infinity && praise(word)) ? 0 : -1;
}
/** Being put right: "thank you for fixing the crash". ("Can you fix it?" and "is a fix coming?" mend nothing.) */
const MENDING = /(?:\b(?:for|after|by|on) |^\s*)(?:fixing|resolving|solving|sorting)\b/iu;
const MENDED =
  /\b(?:fixed|resolved|sorted|solved|back up|works? now|recover\w*|restor\w*|waiv\w*|replac(?:ed|ing)\b|(?:sent|got|received) (?:me |us )?a replacement|credited|refund(?:ed|ing)|found (?:my|our|the)|helped (?:me|us)|(?:walk|talk)(?:ed|ing) (?:me|us) through|holding (?:the|our) (?:plane|flight|train|bus|door|gate|table|room)|got (?:\w+ ){0,3}back|saved (?:me|us|my|our|the day)|no longer (?:happening|occurring|an issue|a problem|there|showing up|appearing))\b/i;

/** Courtesy a contrast's later part may end on ("…, could you check? ty"): no lean of its own. */
const SIGN_OFF_COURTESY =
  /\b(?:thanks?(?: you)?(?: (?:so|very) much)?|thx|ty|cheers|please|pls|kindly|(?:i|we)(?:['’]d| would) (?:be )?(?:really |very |most |so |truly |extremely )?(?:appreciate|grateful)(?: (?:it|that|this))?(?: (?:for|if) (?:any|an?|your|the|you) (?:\p{L}+ )?\p{L}+)?|(?:any (?:further |more )?help|this|it) (?:would be|is) (?:much |greatly |really |very )?appreciated|thank you (?:so much |very much )?for your (?:time|help|patience|understanding))\b/giu;
/** Markers that say the later part is bad news whatever its words: "Unfortunately it …". */
const BAD_NEWS = /\b(?:unfortunately|sadly|regrettably)\b/iu;

/**
 * An expectation and its denial: "I thought the update would be slow, but it wasn't", "we were told
 * setup would be easy. It isn't.", "it was supposed to be fast, it's not". What was expected is
 * read, and the verdict is its opposite. The denial must end the message: "I thought it would be
 * slow, but it wasn't, it was worse" is not this shape. Short messages only.
 */
const EXPECTATION =
  /\b(?:(?:thought|expected|feared|worried|assumed|figured|imagined|suspected|hoped|afraid|told|heard|promised|read)(?: that)?\b[^.;!?]{0,60}?\b(?:would|will|might|could|was going to|were going to|is going to|to)|(?:was|were|is|are)(?: \p{L}+)? (?:supposed|meant|advertised|sold|marketed) (?:to|as))\s+(?:be\s+)?([^.,;!?…]{2,60}?)\s*(?:[,;.!…—–-]+\s*|\s+)(?:(?:but|and|yet|though|well|alas|nope|sadly|happily|luckily|thankfully)\W*\s*)?(?:(?:it|they|he|she|this|that|he|we|i|you)\s+)?(?:(?:really|actually|definitely|certainly|simply)\s+)?(?:wasn['’]?t|weren['’]?t|isn['’]?t|aren['’]?t|didn['’]?t|doesn['’]?t|don['’]?t|hasn['’]?t|haven['’]?t|won['’]?t|(?:was|were|is|are|did|does|do|has|have|will)\s+not|(?:it|they)['’]s not|not (?:at all|really|so|even close))(?:\s+(?:at all|really|even close|one bit|in the slightest|in the least|anymore|any more))?\W*$/iu;
/** "Thought I'd hate it because …, but I was wrong": a dislike expected, and the expectation owned as wrong. */
const WRONG_ABOUT_DISLIKE =
  /\b(?:thought|expected|was sure|were sure|assumed|feared|figured)\b[^.;!?]{0,40}?\b(?:i|we)(?:['’]d| would| was going to| were going to) (?:hate|dislike|regret|be disappointed|be let down)\b.*\b(?:i|we) (?:was|were) (?:so |completely |totally |very )?(?:wrong|mistaken)\b/iu;
function expectationDenied(text: string, reader?: ReaderLean): -1 | 1 | 0 {
  if (/\?/.test(text) || words(text) > SHORT_WORDS) return 0;
  if (WRONG_ABOUT_DISLIKE.test(text)) return 1;
  const m = text.match(EXPECTATION);
  if (!m) return 0;
  const said = m[1];
  // What was expected: a failure or a complaint (denied: praise), or praise (denied: a complaint).
  const lean_ = signOf(lean(said, reader));
  const bad = FAILURE.test(said) || wordTokens(said).some((t) => !t.startsWith('NOT_') && complaint(t));
  const good = wordTokens(said).some((t) => !t.startsWith('NOT_') && praise(t));
  if (wordTokens(said).some((t) => t.startsWith('NOT_'))) return 0; // "thought it wouldn't work": a double turn, left to the readers
  if (bad && !good) return 1;
  if (good && !bad) return -1;
  if (lean_ !== 0) return -lean_ as -1 | 1;
  // What was promised or hoped for and not delivered ("supposed to be cheaper, but it isn't") is a complaint.
  return /\b(?:supposed|meant|advertised|sold|marketed|promised|hoped)\b/iu.test(m[0]) && !bad ? -1 : 0;
}

/**
 * Thanks or praise with nothing complained of: "@user sorted my transfer in one call. cheers",
 * "thank you for walking me through the restore, got all my photos back", "staff in maui were
 * incredible, already planning our next trip". Posts tagged to a company are mostly complaints, and
 * the stack carries that into thanks and praise; the lexicons read them right when nothing in the
 * message fails, asks or turns. Only a negative reading is turned round (composePolarity).
 */
const GRATITUDE = /\b(?:thanks?|thank you|thx|ty|cheers|grateful|kudos|props|shout ?out|lifesavers?|hats off)\b/iu;
const REQUEST =
  /\b(?:please|pls|plz|kindly|could you|can you|would you|can someone|could someone|fix this|in advance)\b/iu;
/** Every mending of a message, compiled once (matchAll copies it). */
const MENDS_ALL = new RegExp(`${MENDED.source}|${MENDING.source}`, 'giu');
export function plainPraise(text: string, reader?: ReaderLean): 1 | 0 {
  // The cheap tests first: most messages thank nobody.
  if (!GRATITUDE.test(text) || /\bthanks? (?:a lot|a bunch|so much) for\b/iu.test(text)) return 0;
  if (/\?/.test(text) || words(text) > SHORT_WORDS || REQUEST.test(text) || [...text.matchAll(MARKER)].length > 0)
    return 0;
  // A failure is allowed only when it was put right after it was told: "thank you for walking me
  // through the restore, got all my photos back"; not "many thanks, although the replacement also broke".
  const mends = [...text.matchAll(MENDS_ALL)];
  const mendedAt = mends.length > 0 ? mends.at(-1)!.index : -1;
  const mended = mendedAt >= 0;
  // "thank you for fixing the billing error": a failure within two words after the mending is its object.
  const mendedEnd = mendedAt >= 0 ? mendedAt + mends.at(-1)![0].length : -1;
  const mendedObject = (m: RegExpExecArray) => mendedEnd >= 0 && words(text.slice(mendedEnd, m.index)) <= 2;
  if (undeniedFailures(text).some((m) => m.index > mendedAt && !mendedObject(m))) return 0;
  if (/\b(?:although|though|except|apart from)\b/iu.test(text)) return 0;
  const service = text.match(SERVICE_FAILED);
  if (service && service.index! > mendedAt) return 0;
  // Sarcasm's marks, praise in scare quotes, or something still not done: no plain praise.
  if (SARCASM_CUE.test(text) || IRONIC.test(text) || SCARE_QUOTES.test(text) || /\bstill\b/iu.test(text)) return 0;
  // A complaint word said plainly (not denied) is something complained of.
  const scoped = scopedWords(text);
  if (!mended && scoped.some(({ word, distance }) => distance === Infinity && complaint(word))) return 0;
  // Praise denied ("not once has it impressed me") is no praise.
  if (scoped.some(({ word, distance }) => distance !== Infinity && praise(word))) return 0;
  // Thanks on the way out ("closing our account, thanks for the good years") is a goodbye, not praise.
  if (
    /\b(?:clos(?:e|ing)|cancel\w*|shut\w*|leaving|last (?:month|week|day)|end of (?:the|our) contract|not (?:continu|renew)\w*)\b/iu.test(
      text,
    )
  )
    return 0;
  return mended || lean(text.replace(GRATITUDE, ' '), reader) >= CLEAR ? 1 : 0;
}

/** The composition verdict of a (normalised) message, or undefined when no rule applies. */
export function compositionVerdict(message: string, reader?: ReaderLean): Verdict | undefined {
  const text = core(message);
  const expected = expectationDenied(text, reader);
  if (expected) return { sign: expected, rule: 'expectation denied' };
  // Before the contrast: "Big fan of the app, but I've run into a snag: … Could you help? Thanks!"
  if (helpWithProblem(text) < 0) return { sign: -1, rule: 'polite complaint' };
  const parts = contrastParts(text);
  if (parts) {
    const marker = text.slice(text.indexOf(parts[0]) + parts[0].length, text.lastIndexOf(parts[1]));
    const badNews = BAD_NEWS.test(marker) ? -2 * CLEAR : 0;
    // A denial first: the lexicons misread "there was no hassle" as a hassle.
    const after =
      deniedPraise(parts[1], reader) ||
      deniedComplaint(parts[1]) ||
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
  if (sarcasm(text) < 0) return { sign: -1, rule: 'sarcasm' };
  if (politeComplaint(text, reader) < 0) return { sign: -1, rule: 'polite complaint' };
  if (mismatch(text, reader) < 0) return { sign: -1, rule: 'mismatch' };
  if (plainFailure(text) < 0) return { sign: -1, rule: 'plain failure' };
  if (deniedComplaint(text) > 0) return { sign: 1, rule: 'denied complaint' };
  if (praiseIdiom(text, reader) > 0) return { sign: 1, rule: 'praise idiom' };
  if (plainPraise(text, reader) > 0) return { sign: 1, rule: 'plain praise' };
  if (clearPraise(text, reader) > 0) return { sign: 1, rule: 'clear praise' };
  return undefined;
}

/**
 * Praise said plainly and nothing else: "The salesman was polite and kind.", "the importer is
 * responsive and saves us hours every week". The stack reads some such praise negative when its
 * words sit beside complaints in the corpus ("hours", "polite"): the template probe's clear
 * positives and the real posts' praise (docs/analysis.md). Short, the lexicons and the word reader
 * together clearly positive, and nothing that could turn it: no negator, contrast, question,
 * failure, complaint word, request, leaving or sarcasm's marks. Sarcasm without them ("Wow, what
 * service") is the learned detector's: heads.ts drops this verdict when the detector finds the
 * message sarcastic.
 */
const CLEAR_PRAISE_WORDS = 20;
const CLEAR_PRAISE_LEAN = 2 * CLEAR;
export function clearPraise(text: string, reader?: ReaderLean): 1 | 0 {
  if (/\?/.test(text) || words(text) > CLEAR_PRAISE_WORDS || NEGATED.test(text)) return 0;
  if (
    [...text.matchAll(MARKER)].length > 0 ||
    /\b(?:although|though|except|still|used to|anymore|again)\b/iu.test(text)
  )
    return 0;
  // Praise withheld or only wished for: "far from clear", "hardly reliable", "could be faster".
  if (
    /\b(?:far from|hardly|barely|scarcely|lack\w*|less than|anything but|rarely|seldom|(?:could|would|should|might) (?:be|have)|supposed to|if only|wish\w*|hope\w*|expected|promised|meant to)\b/iu.test(
      text,
    )
  )
    return 0;
  if (undeniedFailures(text).length > 0 || SERVICE_FAILED.test(text) || PLAIN_FAILURE.test(text)) return 0;
  if (SARCASM_CUE.test(text) || IRONIC.test(text) || SCARE_QUOTES.test(text) || REQUEST.test(text)) return 0;
  if (/\b(?:clos(?:e|ing)|cancel\w*|leaving|switch\w*|refund\w*)\b/iu.test(text)) return 0;
  if (scopedWords(text).some(({ word }) => complaint(word))) return 0;
  return lean(text, reader) >= CLEAR_PRAISE_LEAN ? 1 : 0;
}

/**
 * Two short clauses side by side with no marker, leaning opposite ways: "Beautiful packaging,
 * broken product inside.", "Slow start, brilliant finale." The later one carries the verdict, as
 * after "but". Both must lean clearly (a failure told calmly counts for the later one).
 */
const JUXTAPOSED_WORDS = 20;
const NOT_ENGLISH =
  /\b(?:der|die|das|und|nicht|ist|mit|für|sehr|el|los|las|muy|pero|est|une|les|des|très|il|che|è|non|molto|não|muito|com|para)\b/iu;
const NEGATED =
  /\b(?:no|not|never|nothing|none|nobody|without|\w+n['’]t|(?:do|does|did|is|are|was|were|has|have|had|could|would|should|wo|ca|must|need|ai)nt)\b/iu;
function juxtaposed(text: string, reader?: ReaderLean): -1 | 1 | 0 {
  if (/\?/.test(text) || words(text) > JUXTAPOSED_WORDS) return 0;
  // One sentence of two clauses, the second not joined by a conjunction (those are contrasts or lists).
  const sentence = text.replace(/[.!…\s]+$/u, '');
  if (/[.!…]\s/u.test(sentence)) return 0;
  const parts = sentence.split(/\s*[,;]\s*/u);
  if (parts.length !== 2 || words(parts[0]) < 2 || words(parts[1]) < 3) return 0;
  // Joined by a conjunction (a contrast or a list), opened by a subordinate ("Given the outage, …"),
  // or a side that denies or mends ("no drama at all", "problem solved"): not two plain verdicts.
  if (/^(?:and|or|but|so|yet|then|plus|though|although|while|whereas)\b/iu.test(parts[1])) return 0;
  if (
    /^\W*(?:given|since|as|because|after|before|when|whenever|if|while|though|although|despite|with)\b/iu.test(parts[0])
  )
    return 0;
  if (parts.some((p) => NEGATED.test(p) || MENDED.test(p) || /\bat (?:best|most|least)\b/iu.test(p))) return 0;
  // A request is no verdict: "app keeps crashing, pls help its urgent".
  if (/\b(?:please|pls|plz|help|asap|urgent\w*|can you|could you)\b/iu.test(parts[1])) return 0;
  // The lexicons are English: another language's words ("die", "no") lean by accident.
  if (NOT_ENGLISH.test(text)) return 0;
  // Each side clearly one way (twice a clear stretch), or the later one a failure told.
  const strongly = (x: number) => (x >= 2 * CLEAR ? 1 : x <= -2 * CLEAR ? -1 : 0);
  const before = strongly(lean(parts[0], reader));
  const after = strongly(lean(parts[1], reader)) || plainFailure(parts[1]);
  return before !== 0 && after !== 0 && before !== after ? after : 0;
}

/**
 * "Never been so angry in my life", "never seen such a mess", "I have never had better service": a
 * "never" that compares, not one that denies. The message leans as its words do without it.
 */
const EMPHATIC_NEVER =
  /\bnever (?:(?:have|had|ever)\s+)?(?:been|felt|seen|had|experienced|met|dealt with|encountered|received|tasted|eaten)\s+(?:so|such|this|a (?:more|worse|better)|worse|better|more)\b/iu;
function emphaticNever(text: string, reader?: ReaderLean): -1 | 1 | 0 {
  if (/\?/.test(text) || words(text) > SHORT_WORDS || !EMPHATIC_NEVER.test(text)) return 0;
  return signOf(lean(text.replace(/\bnever\b/giu, ''), reader));
}

/**
 * Praise said by an idiom whose words a lexicon misreads ("nothing beats", "blown away", "above and
 * beyond", "an absolute star"): positive when nothing in the message complains.
 */
const PRAISE_IDIOM =
  /\b(?:nothing (?:beats|compares to|comes close to|tops)|blown away|without (?:a|any) (?:hitch|hiccup|glitch|fuss|hassle)|(?:is|are|was|were) (?:now )?a thing of the past|went above and beyond|goes above and beyond|above and beyond|an? absolute (?:star|legend|gem|hero|lifesaver|joy|delight|treat|pleasure)|thumbs up|hats off|spot on|game[- ]?changer|exceeded (?:all |every |my |our )?(?:\p{L}+ )?expectations?|unbelievably (?:good|kind|helpful|fast|friendly|easy|smooth|quick|tasty|comfortable)|(?:my|our) (?:new )?go-?to\b|won (?:me |us )?over|the only (?:\p{L}+ ){0,2}(?:i|we)(?:['’]d|['’]ll| would| will)? (?:ever )?(?:use|trust|recommend|go to|buy from|fly with|bank with|shop (?:at|with)|order from))\b/iu;
/** Praise by idiom is short; a long message around one is as often sarcasm ("Truly above and beyond. Refund me."). */
const IDIOM_WORDS = 15;
function praiseIdiom(text: string, reader?: ReaderLean): 1 | 0 {
  if (!PRAISE_IDIOM.test(text) || /\?/.test(text) || words(text) > IDIOM_WORDS) return 0;
  // "nothing" of "nothing beats" is no failure: the rest of the message is judged without the idiom.
  const rest = text.replace(PRAISE_IDIOM, ' ');
  return !FAILURE.test(rest) && lean(rest, reader) > -CLEAR ? 1 : 0;
}

/**
 * A failure named in a contrast's later part and not denied: "…. The soup was cold though." A lone
 * "nothing", "another" or "gone" is no failure by itself.
 */
function failureTold(part: string): -1 | 0 {
  const f = part.match(FAILURE);
  if (!f || /^(?:nothing|another|gone|again)$/iu.test(f[0]) || MENDED.test(part)) return 0;
  return NEGATED_BEFORE.test(part.slice(0, f.index)) ? 0 : -1;
}
