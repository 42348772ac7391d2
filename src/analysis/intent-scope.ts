import { negationDistances, wordTokens } from './word-features.js';

/**
 * Whether an intention's words are said or denied: "we will cancel" against "no plans to cancel",
 * "we need a refund" against "no need for a refund". Both readers see the words; the word reader
 * also sees them marked NOT_ inside a negation's scope, but in the stack the sentence embedding,
 * which hears "cancel" either way, outvoted it (v3 flagged 90% of negated churn statements as
 * churn). These counts go into the intention's second stage as two inputs (said, denied), so the
 * out-of-fold fit decides how much a denial cancels. Staying words are kept apart for churn: a
 * denied "renew" ("we won't renew") is churn, a denied "cancel" is not.
 *
 * The scope is wordTokens': from a negator to the next punctuation. Word stems, English only (the
 * other languages' negations still reach the word reader).
 */
const GROUPS: Record<string, RegExp> = {
  churn:
    /^(cancel|leav|quit|switch|unsubscrib|terminat|clos(e|ing)|mov(e|ing)|migrat|ditch|drop|alternativ|competitor|elsewhere)/,
  churn_stay: /^(renew|stay|continu|keep|stick|remain)/,
  refund: /^(refund|reimburs|chargeback|money$|revers(e|al|ing)$)/,
  upgrade: /^(upgrad|seats?$|enterprise$|premium$|add(ing)?$|tier$|licen[cs]es?$|upsell|expan(d|sion)|bump)/,
  downgrade: /^(downgrad|fewer$|cheaper$|reduc|remov)/,
  // "recomend", "reccomend": the usual misspellings in posts.
  recommend: /^(rec+om+end|suggest)/,
  feature_request: /^(wish|add|feature|would$|could$|please$)/,
  support_request: /^(help|how$|why$|fix|assist|support)/,
  price_sensitive: /^(expensive|pric|cost|discount|afford|cheap)/,
  // Not inputs of any head (SCOPE_GROUPS): the act of upgrading, apart from the tiers and seats it
  // names, for the denial veto (deniedOnly).
  upgrade_verb: /^(upgrad|upsell|bump)/,
};

/** What a vendor sends: an upgrade word before one of these names the offer, not an intention. */
const OFFER =
  /^(?:offers?|emails?|e-mails?|mails?|prompts?|banners?|pop-?ups?|pitch(?:es)?|reminders?|notifications?|nags?|ads?|spam)$/;

/** What "cancel" may name that is not the service itself: "cancel the refund", "cancel my order". */
const CANCELLED_THING =
  /^(?:(?:the|my|our|that|this|your|a)\s+)?(?:\w+\s+)?(?:refund|reimbursement|chargeback|upgrade|upsell|order|booking|reservation|table|appointment|request|transfer|payment)s?\b/;
/**
 * Wide (the veto's counts only: the heads were trained on CANCELLED_THING's): also one booking of a
 * service, up to two words after its determiner ("cancel my 8am spin class", "cancel the flight to
 * Rome and rebook", "cancel the hotel room on the 14th"; dev28), one of them only: "cancel my
 * lessons", "cancel all my classes" and "cancel my delivery pass" end the service. Not a
 * membership, plan, account or subscription: that is the service.
 */
const WIDE_CANCELLED_THING = new RegExp(
  `${CANCELLED_THING.source}|^(?!all\\b|every\\b)(?:(?:the|my|our|that|this|your|a|an|tomorrow['’]?s|today['’]?s|tonight['’]?s)\\s+)?(?:[\\w-]+\\s+){0,2}?(?:class|session|lesson|flight|room|delivery|visit|slot|tour|ride|ticket|meeting|viewing|consultation|pick-?up|collection)\\b(?!s)(?!\\s+(?:pass|plan|subscription|membership|account|service|contract|box|bundle|package|scheme)\\b)`,
);

/** Leaving and staying: a negator denies one or the other (scopeCounts). */
const CHURN_GROUPS = new Set(['churn', 'churn_stay']);

/** The scope groups read by each label's second stage. */
export const SCOPE_GROUPS: Record<string, string[]> = {
  churn: ['churn', 'churn_stay'],
  refund: ['refund'],
  upgrade: ['upgrade'],
  downgrade: ['downgrade'],
  recommend: ['recommend'],
  feature_request: ['feature_request'],
  support_request: ['support_request'],
  price_sensitive: ['price_sensitive'],
};

/**
 * How many scope inputs a label's second stage has: four per group (said, denied, and the two
 * readers' logits when the words are only denied: heads.ts stackRow).
 */
export const scopeInputCount = (label: string) => 4 * (SCOPE_GROUPS[label]?.length ?? 0);

export type ScopeCounts = Record<string, [number, number]>;

/**
 * How close a negator must be for an intention word to count as denied: "no need for a refund",
 * "we won't be adding more seats" (four words between), but not "I can't believe I have to ask
 * for a refund" (the negator denies the believing, not the refund).
 */
const DENIAL_REACH = 5;
/**
 * A short no after a question: "Upgrade? No.", "More seats? Not this year.", "Premium? Nope, we're
 * good.", "Cancel? Never.", "The annual plan? We'll pass." Not any clause that begins with "no":
 * "Why can't I cancel? No one answers" asks to cancel, "Why can't I cancel? Never got a reply" too.
 */
const ANSWER_NO =
  /^\s*(?:a\s*:\s*)?(?:(?:absolutely|definitely|certainly|honestly|hell|heck|oh|um+|uh+|lol|haha|god|sorry)[,!.]*\s+)?(?:not a chance|no way|no chance|hardly|certainly not|definitely not|absolutely not)\b|^\s*(?:a\s*:\s*)?(?:(?:absolutely|definitely|certainly|honestly|hell|heck|oh|um+|uh+|lol|haha|god|sorry)[,!.]*\s+)?(?:(?:(?:also|still|again|and) )?(?:no|nope|nah|not)\b\s*(?:[.!,]|$|thanks|this|that|now|yet|for now|really|at the moment|way\b|need(?:ed)?\b|necessary|required|wanted|interested|for (?:me|us)\b)|never\s*(?:[.!,]|$)|(?:(?:we|i)(?:['’]ll| will) )?(?:pass|skip it|skip that)\s*(?:[.!,]|$|for now|this time|thanks))/i;
/** A question asks rather than denies: "why can't I cancel?" wants to cancel. */
const ASKING = /\?\s*$|\b(why|how come)\b/i;
/**
 * Idioms whose negator says the opposite: "can't wait to leave", "can't recommend it enough",
 * "couldn't recommend them more" (but "can't recommend them any more" is a denial).
 */
const NOT_A_DENIAL =
  /\b(can['’]?t|cannot) wait\b|\b(can['’]?t|cannot|couldn['’]?t) recommend\b[^.!?;]*\b(enough|(?<!\bany\s)more)\b/i;
/**
 * A condition or a lack puts the negator on the cause, not on the intention: "if the price doesn't
 * come down we'll switch", "without it we'll migrate" are churn. Portuguese, Spanish, French and
 * German "if" too: the corpus has such lines.
 */
const CONDITIONAL =
  /\b(if|unless|otherwise|(?<!\b(?:fine|happy|ok|okay|good|content|do|manage|live|cope|survive)\s)without|or else|se|si|wenn)\b/i;

/**
 * Denials without a negator before the word. A decision against ("we decided against upgrading",
 * "we've ruled out the Pro tier", "holding off on adding seats", "she declined the upsell") or
 * staying where one is ("we'll stay on the Basic tier", "sticking with three licences") denies what
 * follows it; a predicate that sets it aside ("upgrading isn't on the table", "cancelling is off
 * the cards", "a refund won't be necessary", "more seats don't make sense", "isn't in the budget",
 * "isn't something we need", "our tier is more than enough") denies what comes before it in its
 * clause; "hard to recommend"
 * and "used to recommend it, not anymore" deny a recommendation ("hard to" denies nothing else:
 * "it's impossible to cancel, the button is hidden" wants to cancel).
 */
const DENIED_AFTER =
  /\b(?:(?:am|are|is|['’]m|['’]re) not (?:looking|asking|hoping|after|seeking|angling|pushing)(?: for)?|decided against|decided not to|ruled out|rule out|holding off on|hold off on|held off on|put off|no longer (?:considering|planning)|not considering|not planning (?:on|to)|(?:hard|difficult|impossible|(?:would|['’]d) struggle|struggling) to(?= recommend)|declin(?:ed|es|ing)|turn(?:ed|s|ing)? down|pass(?:ed|es|ing)? on|sa(?:id|ys|ying) no to|no thanks (?:on|to|for)|(?:stay(?:s|ed|ing)?|remain(?:s|ed|ing)?) (?:on|at|with)|stick(?:s|ing)? (?:with|to)|keep(?:s|ing)? (?:our|my|the|to)|stop (?:asking|pushing|offering|nagging|emailing|sending|suggesting|recommending|pitching|mentioning|upselling)|rather than|instead of|(?:happy|fine|good|content|okay|ok) (?:on|with) (?:the|our|my)|(?:cancel\w*|drop(?:s|ped|ping)?|scrap\w*) (?:the|my|that|this)(?= (?:\w+ )?(?:refund|reimbursement|chargeback|upgrade|upsell))|withdraw\w* (?:the|my|our|that|this)(?= (?:\w+ )?(?:request|claim|ticket|application))|skip(?:s|ped|ping)?|forgo(?:ing)?|no need (?:to|for)|(?:do|does)(?:n['’]?t| not) (?:wish|want|intend|plan) to|remove (?:me|us) from|unsubscribe (?:me|us) from|(?:fine|happy|ok|okay|good|content|manage|cope|live|survive|do) without)\b/i;
const DENIED_BEFORE =
  /\b(?:(?:is|are|was)(?:n['’]?t| not| no longer| never)|won['’]?t be|will not be|isn['’]?t going to be)\s+(?:on (?:the|our|my) (?:table|cards|roadmap|agenda|list|plans?)|in (?:the|our|my) budget|the (?:goal|plan|point|idea|intention)|happening|planned|an option|necessary|needed|required|(?:something|anything) (?:we|i) (?:need|want|require)|something we(?:['’]re| are) (?:considering|planning)|what (?:i|we)(?:['’]m|['’]re| am| are) (?:after|looking for|asking for)|what (?:i|we) (?:want|need|asked for))\b|\b(?:is|are) off the (?:table|cards|agenda)\b|\b(?:does|do)(?:n['’]?t| not) make sense\b|\bnot (?:needed|necessary|required|wanted)\b|\b(?:would(?:n['’]?t| not)|won['’]?t|will not|does(?:n['’]?t| not)) (?:help|solve (?:anything|it|this)|fix (?:anything|it|this))\b|\b(?:is|are)(?:n['’]?t| not) (?:worth (?:it|the (?:money|price|cost))|for (?:us|me))\b|\b(?:is|are) (?:plenty|(?:more than )?enough|sufficient|all (?:we|i) need)\b/i;
/**
 * A denial of "one" after the intention was named: "the refund request your agent opened — I never
 * wanted one", "an upgrade? I don't need one". Not "it", which is as often the product ("refund me,
 * I don't need it"); not for leaving ("cancel, I don't need one" is still leaving).
 */
const DENIED_ONE =
  /\b(?:do(?:n['’]?t| not)|never|did(?:n['’]?t| not)|(?:am|are|'m|'re) not)\s+(?:really\s+|even\s+)?(?:need(?:ed)?|want(?:ed)?|ask(?:ed|ing)? for|request(?:ed)?)\s+one\b(?!\s+(?:more|of|bit|thing|day))/i;
const DENIED_BY_ONE = new Set(['refund', 'upgrade', 'downgrade']);

/**
 * More forms of denial, read only for the denial veto (deniedOnly, with `wide`): the heads were
 * trained on the counts without them, so their inputs stay as trained. After the dev16 read set:
 * - a refusal or a preference said before it ("I refuse to upgrade", "I'd rather keep my account
 *   than get a refund");
 * - a plan set aside after it, with a wider reach back ("an upgrade to the 900Mb Ultra plan is not
 *   on the cards", "upgrading is not something I will do");
 * - a question answered no after a rhetorical one ("Upgrade? For what, a shinier badge? Hard pass");
 * - a double negative that says the act ("there's no reason not to upgrade") or an expectation
 *   reversed ("I never thought I'd upgrade, but …"): nothing denied in that clause.
 */
const WIDE_DENIED_AFTER = new RegExp(
  [
    // The writer's own refusal only: "they refused to refund me" asks for one.
    String.raw`\b(?:i|we)(?:['’]d| would| will|['’]ll)? (?:\w+ )?refus(?:e|es|ed|ing) to\b`,
    // "I'd rather keep the £12.99 as credit than get a refund" (a decimal point is no sentence end).
    String.raw`(?<=\b(?:rather|sooner)\b(?:(?!\.\s)[^!?;]){1,60})\bthan\b`,
    // "please remove the cancellation flag": a cancellation undone (dev19).
    String.raw`\b(?:remov|withdraw|undo|undid|revers|revok|retract|scrap|ignor|drop)\w* (?:the|my|our|that|this|any)(?= (?:\w+ )?cancell?ation)`,
    // "you don't have to give me my money back" (dev19).
    String.raw`\b(?:do|does)(?:n['’]?t| not) (?:have|need) to (?:give|send|pay|transfer|process|issue)\b`,
    // Put off, waved away, declined in the present, a no said, another remedy preferred, offers to
    // stop (dev25): "postponing the upgrade indefinitely", "forget the refund", "I'll decline the
    // refund", "that's a no from me on the family plan upgrade", "we'd prefer a repair over a
    // refund", "please stop offering me the sea-view room upgrade".
    String.raw`\b(?:postpon|defer|shelv)\w*`,
    String.raw`\bforget (?:about )?(?:the|my|any)(?= (?:\w+ )?(?:refund|reimbursement|upgrade|credit))`,
    String.raw`\bdecline (?:the|your|this|that|any)\b`,
    String.raw`\b(?:that['’]?s|it['’]?s) a (?:hard )?(?:no|pass) (?:from (?:me|us) )?(?:on|for|to)\b`,
    String.raw`\bprefer\w* (?:a |an |the )?(?:[\w-]+ ){1,3}?(?:over|to)(?= (?:a |an |the |my )?(?:refund|reimbursement|upgrade))`,
    String.raw`\bstop (?:offering|pushing|suggesting|sending|showing|emailing) (?:me|us) (?:the|your|an?|that|this)(?= (?:[\w-]+ ){0,3}(?:upgrade|upsell)s?\b)`,
    // Someone else's no ("my husband vetoed the upgrade") and a decision put off to a later day
    // ("we'll think about the premium tier next year, not now") (my own templates, 2026-12-05).
    String.raw`\bveto(?:ed|es|ing)?\b`,
    // An upgrade undone ("undo the upgrade to premium, I clicked it by accident") or weighed hard
    // ("I'll think twice before upgrading") (my own templates, 2026-12-05).
    String.raw`\b(?:undo|undid|revers\w*|roll(?:ed|ing)? back|remov\w*) (?:the|my|this|that|our)(?= (?:\w+ )?upgrade)`,
    String.raw`\bthink(?:ing)? twice (?:before|about)\b`,
    String.raw`\b(?:we|i)(?:['’]ll| will| might| may) (?:think about|consider|revisit|look at|look into)\b(?=[^.!?]*\b(?:next (?:year|month|time|season)|later|not (?:now|yet)|one day|some day|someday)\b)`,
  ].join('|'),
  'iu',
);
/**
 * "your agent offered to refund £5 … I'd like to decline that": the vendor's offer, declined, is not
 * the customer's asking (dev19). Only when the message declines ("they offered a refund but it never
 * arrived" still wants it).
 */
const WIDE_OFFERED = /\b(?:offered|offering|offers) (?:me |us )?(?:to |a |an )?(?=(?:[\w£$€.]+ )?refund)/giu;
const WIDE_DECLINED =
  /\b(?:declin\w*|no thanks|turned (?:it |that )?down|said no|don['’]?t (?:want|need) (?:it|one|a refund)|not necessary|keep (?:it|the money)|leave the charge)\b/i;
/** A plan weighed and not carried out ("I was going to ask for my money back, but …"): refund and upgrade words after it are not said. */
const WIDE_WEIGHED = /\b(?:(?:was|were) (?:going|about|planning) to|thought (?:about|of)|considered)\b/gi;
const WEIGHED_GROUPS = new Set(['refund', 'upgrade', 'downgrade']);
/**
 * Someone else's claim or question about the writer's leaving ("my mate thinks I'm gonna switch",
 * "the rumours that we're leaving", "our account manager asked if we're planning to move"): its
 * words are denied when the message contradicts it ("nope", "are false", "we're not").
 */
const WIDE_REPORTED =
  /\b(?:thinks?|reckons?|assum(?:es|ed)|asked (?:me |us )?(?:if|whether)|wonder(?:s|ed|ing) (?:if|whether)|rumou?rs?(?: (?:that|about|of))?|claim(?:s|ed|ing)? that|(?:a |the )?(?:post|story|thread|message) (?:going (?:a)?round |saying |claiming )|heard that)\b/i;
/** A contradiction, said after the claim: "nope", "are false", "We're not." (not "I'm not happy"). */
const WIDE_CONTRADICTED =
  /\b(?:(?:we|i) (?:both )?(?:agreed|decided|said) (?:no|against it)|false|untrue|not true|nonsense|rubbish|nope|no way|not happening|not going anywhere|not (?:cancell?ing|leaving|switching|moving|going to)|(?:is|are) wrong|(?:we['’]re|i['’]m|we are|i am) still (?:a )?(?:customers?|users?|members?|subscribers?|with (?:you|them)))\b|\b(?:we['’]re|i['’]m|we are|i am) not(?=\s*(?:[.!,;:–—-]|$))/i;
/**
 * A plan set aside after it is named: "isn't on my radar", "isn't something we'd consider", "has
 * never crossed my mind". (saysLeaving reads it too: "giving up my membership has never crossed my
 * mind", dev19.)
 */
const SET_ASIDE =
  /\b(?:is|are)(?:n['’]?t| not) on (?:my|our|the) radar\b|\b(?:is|are|was|were)(?:n['’]?t| not| never) (?:something|anything|a thing) (?:[\p{L}'’]+ ){0,4}?(?:do|doing|consider\w*|entertain\w*|need\w*|want\w*|pursu\w*|plan\w*)\b|\b(?:(?:has|have|had)(?:n['’]?t| not)|(?:has|have|had) never|never) (?:even |once )?crossed (?:my|our|anyone['’]s) minds?\b/iu;
const WIDE_DENIED_BEFORE = new RegExp(
  String.raw`\bmakes? no sense\b|\b(?:is|seems|feels|would be) (?:pointless|unnecessary|overkill)\b|\bback(?:ed|ing)? out\b|\b(?:can|will have to|must|has to|have to|can just) wait\b|\bchanged (?:my|our) minds?\b|\b(?:decided|voted|chose|opted) against it\b|\b(?:said no to|passed on|ruled out) (?:it|that|them)\b|\bturned (?:it|that|them) down\b|\bby (?:accident|mistake)\b|\b(?:was|were) (?:meant|intended) for (?:a different|another|someone else|the wrong)\b|${SET_ASIDE.source}`,
  'iu',
);
const WIDE_REACH_BACK = 8;
const WIDE_ANSWER_NO =
  /^\s*(?:(?:a\s+)?hard pass|thanks,? but no|no,? thanks?|not for (?:me|us)|not (?:me|us)|pass)\b/i;
const WIDE_NOT_A_DENIAL =
  /\bno reason not to\b|\bnever (?:thought|expected|imagined|believed|dreamed|dreamt)(?: that)? (?:i|we)(?:['’]d| would| will| might| could)\b/i;

/**
 * Leaving weighed, then staying decided: "thought about leaving, decided to stay", "was about to
 * cancel but changed my mind", "nearly switched, sticking with you". Its leaving words are denied.
 */
const WEIGHED_THEN_STAYED =
  /\b(?:thought (?:about|of)|(?:might|may) (?=cancel|leave|switch|quit)|consider(?:ed|ing)|was (?:going|about) to|were (?:going|about) to|almost|nearly|tempted to|on the verge of|close to|look(?:ed|ing) (?:at|around at) (?:other|another|alternative|competitor)|compar(?:ed|ing))\b[^.!?;]*\b(?:(?:decided|chose|choosing|opted|going|gonna|plan(?:ning)?) to (?:stay|keep|remain|stick)|(?:i['’]m|we['’]re|i am|we are) (?:staying|sticking)|sticking (?:with|around)|stay(?:ing)? (?:put|after all)|changed (?:my|our) minds?)\b/i;

/** The same across sentences: "The slow speeds had me looking at other providers. In the end … so I'm staying with them." */
const WEIGHED_THEN_STAYED_ACROSS = new RegExp(WEIGHED_THEN_STAYED.source.replace('[^.!?;]*', '[^?;]*'), 'i');

/** "I used to recommend it, not anymore", "we stopped recommending it": the praise has ended. */
const ENDED = /\bused to\b[^.!?;]*\b(?:not|no) (?:any ?more|longer)\b|\bstopped recommending\b/i;

/**
 * The token ranges [start, end) of a clause that its decisions against deny (the words after one,
 * to the next comma, at most DENIAL_REACH) and its setting-aside predicates deny (the words before
 * one, back to the last comma, at most DENIAL_REACH). Every match counts: "stay on the Basic plan
 * and keep our seats" has two.
 */
function deniedRanges(clause: string, wide: boolean): [number, number][] {
  const ranges: [number, number][] = [];
  const after = wide ? [DENIED_AFTER, WIDE_DENIED_AFTER] : [DENIED_AFTER];
  const before = wide ? [DENIED_BEFORE, WIDE_DENIED_BEFORE] : [DENIED_BEFORE];
  const global = (re: RegExp) => new RegExp(re.source, re.flags.includes('u') ? 'giu' : 'gi');
  for (const m of after.flatMap((re) => [...clause.matchAll(global(re))])) {
    const from = wordTokens(clause.slice(0, m.index + m[0].length)).length;
    const reach = Math.min(DENIAL_REACH, wordTokens(clause.slice(m.index + m[0].length).split(',')[0]).length);
    ranges.push([from, from + reach]);
  }
  for (const m of before.flatMap((re) => [...clause.matchAll(global(re))])) {
    const upTo = wordTokens(clause.slice(0, m.index)).length;
    const reach = wide ? WIDE_REACH_BACK : DENIAL_REACH;
    const back = Math.min(reach, wordTokens(clause.slice(0, m.index).split(',').pop()!).length);
    ranges.push([upTo - back, upTo]);
  }
  return ranges;
}

/**
 * An upgrade declined without a negator before an upgrade word: staying on the current plan
 * ("we'll remain on our current plan", "happy on the monthly plan"), no need for more ("don't need
 * more storage"), or a purchase refused up to eight words before what it names ("we won't be
 * buying any extra project tracker seats", "I will not be purchasing the package or any other
 * upgrade"). Counted as `upgrade_declined` (no head reads it; deniedOnly does).
 */
const UPGRADE_DECLINED =
  /\b(?:(?:stay|staying|remain|remaining|stick|sticking|keep|keeping)(?: on| with)? (?:our|my|the) (?:current|existing|present|basic|free|cheaper|standard|monthly) (?:plan|tier|package|subscription|membership|level)|(?:staying|remaining|sticking|keeping|(?:will|['’]ll|going to) (?:stay|remain|stick|keep))(?: on| with)? (?:our|my|the) (?:[\w-]+ ){0,2}?(?:plan|tier|package|subscription|membership|level)|keep (?:us|me) on\b|(?:still|remain) on (?:the|my|our) (?:free|basic|current|existing|standard|cheaper|lower|old|individual|starter) (?:plan|tier|package|subscription|membership)|(?:no|zero|not the (?:slightest|least)) (?:intention|plans?|desire|interest|wish) (?:of|to|in) (?:join|upgrad|mov|buy|tak|get|go|switch|step|pay)\w*(?: (?:up|for|to|into|onto))? (?:the |a |an |our |my |any )?(?:[\w-]+ ){0,3}?(?:plan|tier|package|membership|level|class|suite|bundle|subscription|edition|version|card|policy|cover|room|seats?|licen[cs]es?|scheme|upgrade|premium)|(?:we|i) (?:both )?(?:agreed|decided|said)(?: on)? (?:no|against it)\b|(?:decided|chose|opted|voted) against (?:the |a |an |our |my )?(?:[\w-]+ ){0,3}?(?:plan|tier|package|membership|level|class|suite|bundle|subscription|edition|version|card|policy|cover|room|seats?|licen[cs]es?)|(?:is|are|['’]s) (?:plenty|(?:more than )?enough|sufficient|all (?:i|we) need) for (?:me|us)|(?:all set|about|going|planning|ready) to (?:go for|get|take|buy|move to|switch to|upgrade)\b[^.!?]{0,60}\b(?:but|then)\b[^.!?]{0,80}\b(?:leaving it|not (?:bothering|going ahead)|(?:decided|chose) (?:against|not to)|holding off|skipping it|giving it a miss|changed (?:my|our) minds?)|withdraw(?:ing|n|ed)? (?:my|our|the) (?:request|application|order) (?:to|for) (?:step|move|go|upgrade|trade)\b[^.!?,]{0,60}|(?:had|have|booked|ordered|requested|planned|arranged) (?:an? |the |my |our )?(?:upgrade|move up|step up)\b[^.!?]{0,60}?\b(?:but|and|so) (?:i|we)(?:['’]ve| have)? (?:now )?(?:cancell?ed|dropped|scrapped|called off|withdrawn|pulled) (?:it|that|them)\b|(?:going to|gonna|will|['’]ll|['’]m going to|['’]re going to) wait (?:until|till|for)\b[^.!?]{0,60}\bbefore (?:i|we) (?:upgrade|move|go|switch|get|buy)(?: (?:up )?(?:to|onto) (?:the |a |an |our |my )?(?:[\w-]+ ){0,3}?(?:plan|tier|package|membership|level|class|suite|bundle|subscription|edition|version))?|(?:happy|fine|content|good) (?:on|with) (?:our|my|the) (?:current|existing|present|basic|free|standard|monthly) (?:plan|tier|package|subscription|membership)|(?:do|does)(?:n['’]?t| not) need (?:any )?(?:more|extra|additional|a bigger|a larger|a higher)|(?:won['’]?t|will not|(?:am|are|['’]m|['’]re) not going to|(?:do|does)(?:n['’]?t| not)(?: want to| plan to| intend to)?|never) (?:be )?(?:buy(?:ing)?|purchas(?:e|ing)|pay(?:ing)? for|get(?:ting)?) (?:[\w-]+ ){0,7}?(?:seats?|upgrades?|tiers?|add-ons?|licen[cs]es?|package|premium|bundle)(?:,? or (?:any |an )?(?:other )?(?:upgrades?|add-ons?|extras?|tiers?))?|(?:not|never) (?:interested in|looking to|planning to|going to) (?:move|moving|step|stepping|go|going) up|(?:declin\w*|turn\w* down|pass\w* on|sa(?:id|ys|ying) no to|refus\w*) (?:the |an |their |your |this |that )?(?:offer|invitation|chance|option|invite) to (?:move|step|go|trade) up(?: to (?:the |a |an |our |my )?(?:[\w-]+ ){0,2}?(?:premium|plus|pro|tier|plan|package|membership|level|class|suite|seats?)\b)?|(?:decided|chosen|choose|chose) not to (?:move|step|go) up|(?:decided|chose|opted|voted) (?:against|not to) (?:moving|switching|going|stepping|changing|trading|move|switch|go|step|change|trade) (?:up )?(?:to|onto|into) (?:the |a |an |our |my )?(?:[\w-]+ ){0,3}?(?:plan|tier|package|membership|level|class|suite|bundle|subscription|edition|version|card|policy|cover|room|seats?|licen[cs]es?)|(?:do|does)(?:n['’]?t| not) (?:intend|plan|want) to (?:move|step|go) up)\b/i;

/**
 * An upgrade declined with a condition in its clause, which the clause filter below (CONDITIONAL)
 * would otherwise set aside: only on a condition not met ("I'd only upgrade to the full service if
 * the price came down", dev29), a hypothetical turned down ("if premium economy came with a discount
 * I might consider it, but for now I'm not upgrading", dev30), or its point doubted ("is there any
 * point upgrading to 4K if my TV only does 1080p?", dev28).
 */
const DECLINED_ON_A_CONDITION =
  /\b(?:is there )?any point (?:in )?(?:upgrading|getting|paying for|moving up)\b[^.!?]{0,60}\bif\b[^.!?]{0,60}|\b(?:i|we)(?:['’]d|['’]ll| would| will) only (?:upgrade|move|go|switch|look at|consider|think about|get|buy|take|pay for)\b[^.!?]{0,60}?\bif\b|\bif\b[^.!?]{0,80}\b(?:i|we)(?:['’]d| would| might| may| could)\b[^.!?]{0,40}\b(?:but|though)\b[^.!?]{0,20}\b(?:i['’]m|we['’]re|i am|we are|i|we) (?:not|won['’]t be|will not be|don['’]t|do not) (?:upgrading|going to upgrade|moving up|going premium|upgrade|need it)\b/i;
const DECLINED_ON_A_CONDITION_ALL = new RegExp(DECLINED_ON_A_CONDITION.source, 'gi');

/** Every declined upgrade of a message, compiled once (replace resets its lastIndex). */
const UPGRADE_DECLINED_ALL = new RegExp(UPGRADE_DECLINED.source, 'gi');

/**
 * Per group: [said, denied], each 0, 1 or 2 (counts capped, as log-ish evidence). `wide`: with the
 * forms of denial only the veto reads (WIDE_DENIED_AFTER and the rest); the heads' inputs are always
 * the counts without them.
 */
export function scopeCounts(raw: string, opts: { wide?: boolean } = {}): ScopeCounts {
  const wide = opts.wide ?? false;
  // (Wide: a dash between words ends a clause: "We're not - we're renewing"; a decimal point does
  // not: "keep the £12.99 as credit".)
  const text = wide ? raw.replace(/\s[-–—]+\s/g, '; ').replace(/(\d)\.(\d)/g, '$1$2') : raw;
  const out: ScopeCounts = {};
  for (const g of Object.keys(GROUPS)) out[g] = [0, 0];
  // [declined, upgrade words said outside what was declined]: "we won't be buying any extra seats"
  // names the seats it declines.
  // ("I'd only upgrade if the price came down": a condition that is the point, so not a clause CONDITIONAL sets aside.)
  const declined =
    clausesOf(text).some((c) => !CONDITIONAL.test(c) && !ASKING.test(c) && UPGRADE_DECLINED.test(c)) ||
    DECLINED_ON_A_CONDITION.test(text);
  out.upgrade_declined = [
    declined ? 1 : 0,
    declined
      ? scopeCounts(text.replace(UPGRADE_DECLINED_ALL, ' , ').replace(DECLINED_ON_A_CONDITION_ALL, ' , '), opts)
          .upgrade[0]
      : 0,
  ];
  const declinedOffer = wide && WIDE_DECLINED.test(text);
  // Clause by clause, so that a clause's own question mark or condition decides whether it denies.
  const clauses = clausesOf(text);
  const stayedAcross = !ASKING.test(text) && WEIGHED_THEN_STAYED_ACROSS.test(text);
  // The first clause after each that is not a question, in one pass from the end (a message of
  // thousands of questions must not cost their square).
  // And whether a clause after each contradicts a claim about the writer (wide).
  const nextStatement: (string | undefined)[] = [];
  const contradictedLater: boolean[] = [];
  for (let k = clauses.length - 1, next: string | undefined, later = false; k >= 0; k--) {
    nextStatement[k] = next;
    contradictedLater[k] = later;
    if (!ASKING.test(clauses[k])) next = clauses[k];
    later ||= wide && WIDE_CONTRADICTED.test(clauses[k]);
  }
  clauses.forEach((clause, k) => {
    // A question answered no at once denies what it asks: "Upgrade? Not this year."
    // (Wide: the first answer after any rhetorical questions that follow it, in any of the forms.)
    const answer = wide ? nextStatement[k] : clauses[k + 1];
    const answeredNo =
      ASKING.test(clause) && (ANSWER_NO.test(answer ?? '') || (wide && WIDE_ANSWER_NO.test(answer ?? '')));
    // A question, an idiom or a condition: its negator denies no intention.
    const noDenial =
      ASKING.test(clause) ||
      NOT_A_DENIAL.test(clause) ||
      // (Wide: "even if" is no condition on the cause: "I wouldn't upgrade even if it were half price".)
      CONDITIONAL.test(wide ? clause.replace(/\beven if\b/giu, 'even') : clause) ||
      (wide && WIDE_NOT_A_DENIAL.test(clause));
    // The words each decision against or setting-aside predicate denies, as token ranges.
    const ranges = noDenial ? [] : deniedRanges(clause, wide);
    // (Wide: a claim about the writer that the rest of its clause or a later one contradicts, to the
    // clause's end. A question's "if" is the claim's own: "our rep asked if we're planning to move".)
    const claim = wide ? clause.match(WIDE_REPORTED) : null;
    const claimEnd = claim ? claim.index! + claim[0].length : 0;
    if (claim && (contradictedLater[k] || WIDE_CONTRADICTED.test(clause.slice(claimEnd))))
      ranges.push([wordTokens(clause.slice(0, claimEnd)).length, Infinity]);
    // (Wide: a refund the vendor offered, when the message declines it.)
    if (declinedOffer && !noDenial)
      for (const m of clause.matchAll(WIDE_OFFERED)) {
        const from = wordTokens(clause.slice(0, m.index + m[0].length)).length;
        ranges.push([from, from + DENIAL_REACH]);
      }
    // (Wide: the words up to five after a plan weighed, for refunds and upgrades.)
    const weighed =
      wide && !noDenial
        ? [...clause.matchAll(WIDE_WEIGHED)].map((m) => {
            const from = wordTokens(clause.slice(0, m.index + m[0].length)).length;
            return [from, from + DENIAL_REACH];
          })
        : [];
    const ended = !noDenial && ENDED.test(clause);
    // "Thought about leaving, decided to stay": the leaving was only weighed.
    const stayed = !ASKING.test(clause) && (WEIGHED_THEN_STAYED.test(clause) || stayedAcross);
    const isWeighed = (i: number) => weighed.some(([start, end]) => i >= start && i < end);
    const one = noDenial ? null : clause.match(DENIED_ONE);
    // The tokens before "…never wanted one": what it denies.
    const beforeOne = one ? wordTokens(clause.slice(0, one.index)).length : 0;
    const tokens = wordTokens(clause);
    const distances = negationDistances(tokens);
    // The leaving-or-staying group a negator's scope denied first (by the negator's token index).
    const firstDenied = new Map<number, string>();
    // The groups each negator denied within its reach: a later word of one of them in the same
    // scope is its complement ("won't be upgrading to the Pro tier": "tier" six words on).
    const deniedBy = new Map<number, Set<string>>();
    tokens.forEach((tok, i) => {
      const marked = tok.startsWith('NOT_');
      const word = marked ? tok.slice(4) : tok;
      const negator = i - distances[i];
      const byNegator = marked && !noDenial && distances[i] <= DENIAL_REACH;
      // Not for leaving and staying, whose complements firstDenied sorts out below.
      const complement = marked && !noDenial && !byNegator && (deniedBy.get(negator)?.size ?? 0) > 0;
      if (byNegator)
        for (const [g, re] of Object.entries(GROUPS))
          if (re.test(word)) deniedBy.set(negator, (deniedBy.get(negator) ?? new Set()).add(g));
      const denied =
        answeredNo ||
        byNegator ||
        (stayed && GROUPS.churn.test(word)) ||
        ranges.some(([start, end]) => i >= start && i < end) ||
        (ended && GROUPS.recommend.test(word)) ||
        (i < beforeOne && [...DENIED_BY_ONE].some((g) => GROUPS[g].test(word)));
      // "thanks for the upgrade offer", "upsell emails": the vendor's offer named, no intention
      // said ("stop sending upgrade offers" still denies one).
      if (!denied && GROUPS.upgrade.test(word) && OFFER.test(tokens[i + 1]?.replace(/^NOT_/, '') ?? '')) return;
      // "the Pro add-on": a thing the vendor sells, not a wish to add.
      if (!denied && word === 'add' && tokens[i + 1]?.replace(/^NOT_/, '') === 'on') return;
      // "cancel the refund", "cancel my order": what is cancelled is not the service.
      if (
        GROUPS.churn.test(word) &&
        /^cancel/.test(word) &&
        (wide ? WIDE_CANCELLED_THING : CANCELLED_THING).test(
          tokens
            .slice(i + 1, i + (wide ? 5 : 4))
            .join(' ')
            .replace(/NOT_/g, ''),
        )
      )
        return;
      // "moving our seats elsewhere": the leaving word's complement, not a second leaving.
      if (word === 'elsewhere' && tokens.slice(0, i).some((t) => GROUPS.churn.test(t.replace(/^NOT_/, '')))) return;
      for (const [g, re] of Object.entries(GROUPS)) {
        if (!re.test(word)) continue;
        // A negator denies the first leaving or staying word in its scope; a word of the other
        // group after it is that word's complement, neither said nor denied: "we will not be
        // leaving at renewal" denies the leaving, not the renewal (counted as a denied "renew",
        // which means churn, it kept the churn flag the readers gave).
        if (byNegator && CHURN_GROUPS.has(g)) {
          const negator = i - distances[i];
          const first = firstDenied.get(negator) ?? g;
          firstDenied.set(negator, first);
          if (first !== g) continue;
        }
        const d = denied || (complement && !CHURN_GROUPS.has(g)) || (WEIGHED_GROUPS.has(g) && isWeighed(i));
        out[g][d ? 1 : 0] = Math.min(2, out[g][d ? 1 : 0] + 1);
      }
    });
  });
  return out;
}

/**
 * The labels a denial takes away, and the group whose words must be only denied: "no need for a
 * refund", "no plans to upgrade", "we're not cancelling". Not the requests (feature, support,
 * price), where a negator is the complaint itself ("I can't export", "it doesn't support SSO").
 * Churn keeps its staying words apart: a denied "renew" ("we won't renew") is churn, so churn is
 * only taken away when no staying word is denied.
 */
const VETOED_BY_DENIAL: Record<string, string> = {
  churn: 'churn',
  refund: 'refund',
  upgrade: 'upgrade',
  downgrade: 'downgrade',
  recommend: 'recommend',
};

/**
 * Whether a label's words are only denied in the message, never said: then the label is not
 * given, whatever the readers heard (heads.ts, HeadsOptions.denialVeto). In data/train (5,408
 * lines), messages whose refund words are only denied carry `refund` in 1 of 23, upgrade 0 of 30;
 * churn 6 of 76 before conditions were exempted (5 of them conditions, CONDITIONAL).
 */
export function deniedOnly(label: string, counts: ScopeCounts): boolean {
  const group = VETOED_BY_DENIAL[label];
  if (!group) return false;
  const [said, denied] = counts[group];
  if (label === 'churn' && counts.churn_stay[1] > 0) return false;
  // An upgrade declined ("we'll remain on our current plan", UPGRADE_DECLINED) with nothing of an
  // upgrade said outside it, or the act denied where only tiers or seats are said elsewhere ("Not
  // upgrading. The Enterprise tier has nothing I need.").
  if (label === 'upgrade') {
    const [declined, saidOutside] = counts.upgrade_declined;
    if (declined > 0 && saidOutside === 0) return true;
    if (said > 0) return counts.upgrade_verb[1] > 0 && counts.upgrade_verb[0] === 0;
  }
  return denied > 0 && said === 0;
}

/** A label's scope inputs, in SCOPE_GROUPS order. */
export function scopeInputs(label: string, counts: ScopeCounts): number[] {
  return (SCOPE_GROUPS[label] ?? []).flatMap((g) => counts[g]);
}

/**
 * A plain statement of leaving in words that name what is left: "cancel my membership", "end our
 * contract", "I'm unsubscribing from the service", "porting my number to another network",
 * "switching to a different bank", "flying with another airline from now on", "taking our
 * business elsewhere". The churn heads learned leaving from software customers' words; these
 * phrases are the same act in any trade. Not asked ("how do I close my account?"), not under a
 * condition or a maybe ("if it happens again we'll switch to another bank" is churn risk the heads
 * weigh, not a statement), and not denied.
 */
const PROVIDER =
  '(?:provider|network|carrier|operator|bank|airline|company|vendor|supplier|service|tool|app|platform|insurer|gym|hotel|chain|dealer|dealership|brand|store|shop|retailer|streamer|plan|subscription|product|firm|agency|courier|broker)';
/** Local trades a customer leaves as they leave a provider (dev23): "time to find a new garage". */
const TRADE =
  '(?:garage|mechanic|plumber|electrician|dentist|vet|restaurant|takeaway|caf[eé]|cinema|salon|barber|hairdresser|cleaners?|pharmacy|chemist|florist|tutor|school|landlord|letting agent|estate agent|travel agent|removal firm|energy supplier|network provider)';
const PLACE = `(?:${PROVIDER}|${TRADE})`;
const LEAVING = new RegExp(
  [
    '(?:cancel|cancell?ing|end|ending|terminat\\w*|clos(?:e|ing)|discontinu\\w*)\\s+(?:my|our|the|his|her|their)\\s+(?:[\\w&-]+\\s+){0,4}(?:subscriptions?|contracts?|accounts?|memberships?|plans?|polic(?:y|ies)|broadband|package|line|service|pass(?:es)?|tariff|bundle|lease|agreement)',
    // Done already: "I cancelled my insurance policy yesterday", "ended my rental plan" (dev20, dev21);
    // not done to the writer ("they closed my account").
    "(?<!\\b(?:you|they|it|he|she|someone|somebody)(?:['’]ve| have| has| had)? (?:just |already |suddenly )?)(?:cancell?ed|ended|closed|terminated)\\s+(?:my|our|his|her|their)\\s+(?:[\\w&-]+\\s+){0,4}(?:subscriptions?|contracts?|accounts?|memberships?|plans?|polic(?:y|ies)|broadband|package|line|service|pass(?:es)?|tariff|bundle|lease|agreement)",
    // Wanting out, leaving for good, a closing button pressed, a cancellation to process, the provider
    // done with, money moved out, a number ported, a renewal let lapse, a plain "I want to leave" (dev20, dev21).
    '(?:want|wants|wanted)\\s+out\\s+of\\s+(?:my|our|this|the)\\b',
    '(?:decided|deciding|made the decision) to (?:leave|quit)\\b(?!\\s+(?:a|an|some|my|our|it|this|that)\\s+(?:review|tip|feedback|comments?|note|message|rating|job|house)\\b)',
    '\\bleav(?:e|ing) (?:\\S+\\s+){1,4}?for good\\b',
    '(?:hit|clicked|pressed|tapped) [\'"‘“]?(?:close|delete|cancel) (?:my )?(?:account|subscription|membership|plan)',
    '(?:process|confirm|action|complete|accept) (?:my|our|this) cancell?ation',
    "(?:^\\W*|(?:i['’]?m|we['’]?re|i am|we are) (?:so |completely |totally )?)done with (?:you|u)\\b(?!\\s+(?:guys\\s+)?(?:for (?:today|now|the day)|yet))",
    '(?:mov|took|taken|taking|pull|withdr)\\w* (?:every penny|all (?:of )?(?:my|our) (?:money|savings|funds|cash)|(?:my|our) (?:money|savings|funds|cash|pension)) out of\\b',
    '\\bnumbers? (?:is |gets |will be |being |was |has been )?ported\\b',
    '(?:pac|porting|stac) code in hand',
    'remove (?:me|us) as an? (?:[\\w&-]+\\s+){0,4}?(?:customer|member|subscriber|client|user|policyholder)',
    'let(?:ting)? (?:my|our|the) (?:[\\w-]+\\s+){0,3}?lapse',
    "\\b(?:i|we) (?:want|wanna|need|['’]d like) to (?:leave|cancel|quit)\\s*(?:[.!]|$)",
    'unsubscrib(?:e|ing)\\s+from\\s+(?:the|your|this)\\s+(?:[\\w-]+\\s+)?(?:service|app|plan|platform|channel|package)',
    "(?:i['’]?m|we['’]?re|i am|we are) unsubscribing",
    'port(?:ing)?\\s+(?:my|our)\\s+(?:[\\w-]+\\s+)?numbers?',
    `(?:switch\\w*|mov\\w*|port\\w*|go(?:ing)?|transferr?\\w*|book\\w*|fly(?:ing)?|shop(?:ping)?|tak\\w+ (?:my|our) (?:\\w+ )?(?:business|money|car|custom))\\s+(?!(?:a|an|them|him|her|people|customers?|guests?|staff)\\b)(?:[\\w-]+\\s+){0,3}?(?:to|with|at)\\s+(?:another|a different|a new|a cheaper|a competing)\\s+(?:[\\w-]+\\s+)?${PLACE}`,
    'tak\\w+ (?:my|our) (?:\\w+ )?business elsewhere',
    // Done for good, a porting code asked for, a customer lost, a new provider sought (heads v21, dev5).
    "(?:i['’]?m|we['’]?re|i am|we are) (?:so |completely |totally )?done with (?:this|you|your|them|the) (?:[\\w-]+\\s+){0,2}?(?:for good|forever|permanently|once and for all)",
    '(?:requested|requesting|asked for|asking for|got) (?:my|our|a|the) (?:pac|porting|stac|mac|transfer) code',
    'port(?:ed|ing)? (?:my|our) (?:[\\w-]+\\s+)?numbers?',
    "(?:you['’]ve|you have) (?:just )?lost (?:a|another|an?) (?:[\\w-]+\\s+){0,2}customers?",
    `(?:transferr?\\w*|mov\\w*|switch\\w*) (?:my|our) (?:[\\w-]+\\s+){1,2}(?:to|with) (?:another|a different|a new|a cheaper|a competing)\\s+(?:[\\w-]+\\s+)?(?:${PROVIDER}|lender|insurer|provider|broker)`,
    // Ditched for another, a farewell, the reason for leaving asked (heads v21, dev8).
    "(?:ditch(?:ed|ing)?|dump(?:ed|ing)?|drop(?:ped|ping)?|quit|left|leaving) (?!(?:a|an|the|my|our|it|this|that|them|work|home|early|feedback|reviews?|comments?|tips?|notes?|messages?)\\b)[\\w@'’.&-]+(?:\\s+[\\w'’.&-]+){0,2}\\s+for\\s+(?!(?:the|now|good|ever|work|holiday|vacation|lunch|today|repairs?|an? (?:while|bit|walk|moment|minute|second|day|week|month|year|reason|repair|refund|break|holiday|coffee|drink))\\b)",
    '\\bso long,? (?!as\\b)[\\w@]',
    "won['’]?t miss (?:you|it|them|this (?:app|service|bank|company))\\b",
    `time to (?:find|look for|get) (?:a|another) (?:new |different |better )?(?:[\\w-]+\\s+)?(?:${PLACE}|lender|provider)`,
    // A farewell to the provider, the last period as its customer, a cancellation sent (dev9).
    '(?:bye[- ]bye|goodbye|farewell|adios|adi[oó]s|ciao|sayonara|au revoir),? (?!(?:and|for now|then|until|till|see|everyone|all|guys|folks|team|thanks|thank)\\b)[\\w@]',
    '(?:my|our|this is my|this is our) (?:last|final) (?:month|week|day|bill|payment|year|billing cycle|renewal) (?:as an? |with )',
    '(?:my|our|the|a) cancell?ation (?:request|form|notice|letter|email) (?:is )?(?:attached|enclosed|sent|submitted|below)',
    '(?:attached|enclosed|submitting|sending|here is|here\\x27s) (?:is )?(?:my|our) (?:cancell?ation|notice of cancell?ation|termination)',
    // Out for good, a better deal found elsewhere (dev14).
    "(?:i['’]?m|i am|we['’]?re|we are) (?:so |officially )?out\\s*(?:[.!]|$)",
    '(?:found|got|getting|signed up for) (?:a )?(?:much )?(?:better|cheaper) (?:deal|price|offer|rate|option|plan|provider) (?:at|with|elsewhere|from)\\b',
    // Closure asked for: "customer requests account closure" (dev19).
    '(?:request\\w*|asks? for|asked for|wants?) (?:\\w+ ){0,2}?(?:account closure|(?:closure|cancell?ation|termination) of (?:my|our|the|his|her|their) (?:account|subscription|contract|membership|policy))',
    // Given up (dev19).
    'giv(?:e|ing|en) up (?:my|our) (?:[\\w-]+\\s+)?(?:membership|subscription|account|contract|plan|policy|line|pass|licen[cs]e)',
    // The last of its kind announced, a number ported out, a trade changed, deliveries stopped for
    // good (dev23). "My last order from them arrived late" is the most recent one: the announcement
    // needs "this is" or "consider this", or a closing "ever".
    "(?:this|that|today)(?: will be|['’]ll be| is|['’]s) (?:my|our) (?:very )?(?:last|final) (?!(?:day|night|week|weekend|morning|evening|stop|chance|question|message|e-?mail|note|try|attempt|warning|time|reminder)\\b)(?:[\\w-]+\\s+){1,2}?(?:with|from|at|on|through)\\b",
    "(?:this|that)(?: will be|['’]ll be| is|['’]s) the (?:very )?last time (?:i|we) (?:[\\w'’-]+\\s+){0,3}?(?:with|from|at|through|on)\\b",
    'consider (?:this|it) (?:my|our) (?:last|final) [\\w-]+',
    '(?:last|final) (?:[\\w-]+\\s+){1,2}(?:from|with|at) [^.,;!?]{1,40}?,? ever\\b',
    '\\bport(?:ing|ed)?[- ]out\\b',
    '(?:switch|chang)(?:e|es|ed|ing) (?:banks|networks|providers|suppliers|insurers|carriers|gyms|garages|energy suppliers|broadband providers)\\b(?!\\s+(?:details|account|card|info))',
    '(?:stop|cancel|end) (?:all )?(?:my|our|the) (?:[\\w&-]+\\s+){0,3}?(?:deliveries|subscriptions?|memberships?|orders|payments|boxes|direct debits?)\\s+(?:permanently|for good)',
    // Leaving told as what was done with the service rather than with the words "cancel" or
    // "switch" (dev26, 2026-12-04): a service ended by the writer ("ended the meal kit
    // subscription"), moved to a new provider of any trade, a rival's deal or sign-up taken,
    // another vendor chosen, the custom taken elsewhere, the app deleted or the account's deletion
    // asked, a last box or session ordered, final meter readings, a notice given, a subscription
    // let run out, a rival's place started instead.
    "(?:^\\W*|\\b(?:i|we)(?:['’]ve| have)? (?:just |already |finally )?)(?:cancell?ed|ended|closed|terminated) the (?:[\\w&-]+\\s+){0,3}(?:subscriptions?|contracts?|accounts?|memberships?|polic(?:y|ies)|broadband|tariff|lease)\\b",
    `(?:transferr?\\w*|mov(?:e|ed|ing)|port\\w*|tak\\w+|took) (?:(?:my|our|the|all|both|every) )[^.,;!?]{1,50}? (?:to|with|over to) (?:another|a different|a new|a cheaper|a competing|a rival|the new) (?:[\\w-]+\\s+)?(?:${PLACE}|host|registrar|lender|isp|agent|practice|clinic|club|studio)s?\\b`,
    '(?:sign(?:ed|ing)? up|gone|going|went|go) (?:over )?(?:with|to) (?:a|the) (?:rival|competitor|competition)\\b',
    "(?:tak(?:en|ing|e)|took|accept(?:ed|ing)?|went for|gone for|going for) (?:the|a) (?:other|rival|competing) (?:[\\w'’-]+\\s+){0,2}?(?:deal|offer|quote|contract|tariff)\\b",
    '(?:go|going|gone|went|decided to go|voted to go) with (?:another|a different|a rival|a competing) (?!(?:plan|tier|option|package|size|colou?r|seat|room|date|time|flight|table|day|one of (?:your|the))\\b)[\\w-]+',
    '(?:tak(?:e|es|ing|en)|took) (?:my|our) (?:custom|money|cash|savings) (?:to|elsewhere)\\b',
    '(?:requested|requesting|asked for|asking for|request) (?:the )?(?:full )?deletion of (?:my|our) (?:[\\w-]+\\s+)?(?:account|profile)',
    // Not a fix tried ("tried deleting the app, still crashes", "deleted the app and reinstalled").
    '(?<!\\b(?:tried|try|trying|even|to|then|told me to)\\s)(?:delet|uninstall)(?:e|ed|ing) (?:the|your|this) (?:[\\w-]+\\s+)?(?:app|game)\\b(?![^.!?;]{0,60}\\b(?:re-?install\\w*|re-?download\\w*|again|back|still|fix\\w*|work(?:s|ed)?|cache|update\\w*)\\b)',
    'delet(?:ed|ing) (?:my|our) (?:[\\w-]+\\s+)?(?:account|profile)(?!\\s+(?:photo|picture|pic|details|info|data|history|bio)\\b)(?![^.!?;]{0,40}\\b(?:by (?:mistake|accident)|accidentally|restore|back)\\b)',
    // "Last" is also the most recent ("had my last session on Monday and…"): only at a clause's end
    // or with "ever" or "from/with you"; "final" anywhere.
    "(?:ordered|booked|had|attended|took|taking|having|collected|was|is|will be|['’]s) (?:my|our) (?:very )?(?:final (?:box|delivery|order|session|class|lesson|ride|shipment|issue|appointment|treatment|visit)\\b|last (?:box|delivery|order|session|class|lesson|ride|shipment|issue|appointment|treatment|visit)(?:\\s*(?:[.!]|$)|\\s+(?:ever|from (?:you|them)|with (?:you|them))\\b))",
    '\\bfinal (?:(?:meter|gas|electricity|water) readings?|readings)\\b',
    '(?:take|treat|consider) this (?:email |message |letter )?as (?:my|our) (?:written |formal |official )?notice\\b',
    '(?:my|our) notice (?:is|has been|was) (?:in|handed in|given|submitted)\\b',
    '(?:account|subscription|membership) (?:is |has been |now |been )*(?:closed|cancell?ed) (?:on|from) (?:my|our) (?:end|side)\\b',
    'let(?:ting)? (?:my|our|the) (?:[\\w-]+\\s+){0,2}?(?:sub|subscription|membership|contract|plan|policy|trial|account|pass|licen[cs]e|tariff|deal|lease) (?:run out|expire)\\b',
    "\\b(?:started|starting|now) (?:go(?:ing)?|shop(?:ping)?|drink(?:ing)?|eat(?:ing)?|bank(?:ing)?|order(?:ing)?|fly(?:ing)?|book(?:ing)?|buy(?:ing)?|get(?:ting)?) (?:[\\w'’-]+\\s+){0,3}?(?:at|with|from|to) [^.!?;]{1,30}? instead\\b",
  ].join('|'),
  'i',
);
/**
 * A condition or a question: the leaving is not said. "After" is one when a time is to come ("after
 * the contract ends"), not a cause or a span ("after this", "after the way I was treated", "after 6
 * years", dev23).
 */
const MAYBE =
  /\?|\b(?:if|unless|otherwise|or else|when|whether|after(?!\s+(?:this|that|all|everything|the way|what|how|being|\d+|years|months|(?:a|one|two|three|four|five|six|seven|eight|nine|ten|many|several|so many) (?:years?|months?|decades?)))|before|once|until|might|could|would|considering|considered|thinking (?:about|of)|how (?:do|can|to)|can i|should)\b/i;
/** A survey's question that takes the leaving as given: "What is the main reason you are leaving us?" */
const REASON_FOR_LEAVING =
  /\breason (?:why )?(?:you are|you['’]re|i am|i['’]m|we are|we['’]re|for) (?:leaving|cancell?ing|switching)\b/i;
/**
 * The writer switching to a named provider: "That's it, I'm switching to BrightPower", "we've moved
 * over to @user". Case matters (a name has its capital), so "switching to annual billing" or "to the
 * new plan" is no leaving.
 */
const SWITCHING_TO_NAME =
  /(?:\b(?:[Tt]he|[Oo]ur|[Mm]y) (?:whole |entire )?(?:team|family|company|office|household|firm|business|department|staff) (?:is|are|has|have|will)\s+(?:now\s+|officially\s+|already\s+|finally\s+|all\s+)?|\b(?:I['’]?m|[Ww]e['’]?re|I am|[Ww]e are|I['’]?ve|[Ww]e['’]?ve|I have|[Ww]e have|I['’]ll|[Ww]e['’]ll|I|[Ww]e)\s+(?:now\s+|officially\s+|just\s+|already\s+|finally\s+|will\s+|are going to\s+|am going to\s+)?|^\W*)(?:switch(?:ing|ed)?|defect(?:ing|ed)?|mov(?:e|ing|ed)(?: over| across)?|migrat(?:e|ing|ed))\s+(?:over\s+)?to\s+(?:@user\b|(?:[Tt]he\s+)?\p{Lu}[\p{L}&'’]*(?![\p{L}&'’])(?!\s+(?:plans?|tiers?|package|version|edition|subscription|account|licen[cs]e|bundle|mode|model|option|membership|app)\b))|\b(?:I['’]?m|I am|[Ww]e['’]?re|[Ww]e are|I['’]?ll|[Ww]e['’]?ll|I will|[Ww]e will) (?:now |be )?(?:using|going with|shopping (?:at|with)|flying(?: with)?|banking with|booking (?:with|through)|ordering from|streaming on|with) (?:@user\b|\p{Lu})[^.,;!?]{0,40} instead of (?:@user\b|\p{Lu})/u;
/**
 * Leaving told with a provider's name, case-sensitive as SWITCHING_TO_NAME is (dev20, dev21): "Left
 * Harbour Bank in March", "I've finally left.", "switching everything from A to B", "my partner and
 * I are switching to B", "moved our whole household over to B", "already signed with B",
 * "unsubscribed from B", "switched to @user".
 */
const MONTH = '(?:January|February|March|April|May|June|July|August|September|October|November|December)';
const NAME = "(?:@user\\b|\\p{Lu}[\\p{L}&'’+]*)";
const NAMED_LEAVING = new RegExp(
  [
    `(?:^\\W*|\\b(?:I|[Ww]e)(?:['’]ve| have)? (?:finally |already |just |recently )?)[Ll]eft ${NAME}(?! (?:a|an|my|our) )`,
    `\\b(?:I|[Ww]e)(?:['’]ve| have)? (?:finally |already |just |recently )?left(?: (?:back )?in ${MONTH}| (?:last|this) (?:week|month|year)| for good)`,
    // A bare "left." needs its perfect or an adverb: "I've finally left.", not "the tool we left."
    `\\b(?:I|[Ww]e)(?:(?:['’]ve| have) (?:finally |already |just |recently )?|(?:finally|already|just|recently) )left\\s*(?:[.!#]|$)`,
    // "Moved" needs what is moved: "moved from Proposal to Won" is a deal's stage.
    `\\b(?:(?:switch|transferr?|port)\\w* (?:(?:everything|all|every penny|it all|over|across|away) )?|mov\\w* (?:everything|all|every penny|it all|(?:my|our) \\p{L}+(?: \\p{L}+)?) (?:over |across |away )?)from ${NAME}[^.,;!?]{0,40}? to ${NAME}`,
    `\\b(?:[Mm]y|[Oo]ur) (?:\\p{L}+ ){1,2}and I (?:are|have|will) (?:now |officially |already |finally |all |be )?(?:switch\\w*|mov\\w*) (?:over |across )?to ${NAME}`,
    `\\bmov(?:e|ed|ing) (?:all (?:of )?)?(?:our|my) (?:whole |entire )?(?:household|family|team|business|company|money|savings|accounts?|everything|custom|pension|mortgage)(?: \\p{L}+)? (?:over |across )?to ${NAME}`,
    `\\balready signed (?:up )?with ${NAME}`,
    `\\bunsubscribed from ${NAME}`,
    `\\bswitched (?:over )?to ${NAME}`,
    // Quitting a named provider, no more of it, its rival from now on (dev23).
    `(?:^\\W*|\\b(?:I['’]?m|[Ww]e['’]?re|I am|[Ww]e are) )[Qq]uitting ${NAME}`,
    `\\b[Ff]rom now on,? (?:I['’]?m|[Ww]e['’]?re|I am|[Ww]e are|I['’]ll|[Ww]e['’]ll|I will|[Ww]e will) (?:be )?(?:flying|banking|shopping|ordering|going|booking|streaming|eating)(?: with| at| from| to| on)? ${NAME}`,
  ].join('|'),
  'u',
);
/** No longer a customer: "As of today I am no longer a Quillmere Inn customer" (its negator is the leaving). */
const NO_LONGER_CUSTOMER =
  /\b(?:i['’]?m|i am|we['’]?re|we are|i['’]ll be|we['’]ll be) no longer (?:an? )?(?:[\w&'’-]+\s+){0,4}?(?:customer|member|subscriber|client|user|policyholder)s?\b/i;
/**
 * A renewal refused: "we won't be renewing", "I will not renew my contract". Its own negator is the
 * leaving, so only a negator before it denies it ("I never said we won't renew").
 */
const NOT_RENEWING =
  /(?:\b(?:won['’]?t|will not|(?:are|am|['’]re|['’]m) not going to|(?:do|does)(?:n['’]?t| not) plan to|(?:have|has) (?:decided|chosen|opted) not to|(?:are|am|['’]re|['’]m) not)|^\W*[Nn]ot) (?:be )?(?:renew(?:ing)?\b|re-?(?:enrol|enroll|subscrib|join)\w*\b|stay(?:ing)? (?:with|at)\b|extend(?:ing)? (?:my|our|the) (?:[\w-]+\s+)?(?:contract|subscription|membership|policy|plan|lease|agreement)\b)/i;
/**
 * Not coming back: "Won't be back at Orbit Cinemas", "Not coming back to Peakform Gym", "never
 * buying from this studio again" (dev23). Its own negator is the leaving, as NOT_RENEWING's is;
 * "won't be back until Monday" or "back in stock" is no leaving.
 */
const NOT_RETURNING = new RegExp(
  [
    "(?:^\\W*|\\b(?:i|we)(?:['’]m|['’]re| am| are|['’]ll| will)?\\s+)(?:won['’]?t|will not|will never|never|not)\\s+(?:be\\s+)?(?:coming\\s+|going\\s+)?back\\b(?!\\s+(?:until|till|later|tomorrow|soon|online|in stock|up|on|to (?:you|work|sleep|bed|(?:the |my |our )?(?:old|previous|former|original|paper|manual)))\\b)",
    "\\bwon['’]?t be seeing (?:my|our|me|us)\\b[^.!?;]{0,30}\\bagain\\b",
    '\\bnever (?:buying|ordering|booking|flying|shopping|using|eating|staying|banking|renting)\\b[^.!?;]{0,40}\\bagain\\b',
    // "Won't be flying with you again" (dev26).
    "\\b(?:won['’]?t|will not|will never) (?:be )?(?:buying|ordering|booking|flying|shopping|eating|staying (?:at|with)|banking|renting|dining|travell?ing|sailing|driving)\\b[^.!?;]{0,40}\\bagain\\b",
  ].join('|'),
  'i',
);
/** Switched to the provider being written to: "never going back" is then to the one left (dev-posts). */
const CAME_FROM =
  /\b(?:switch|mov|came|port|transferr?)\w* (?:over |across )?(?:here )?from\b|\bfrom (?:a|my|our|the) (?:competitor|old|previous|former)\b/i;
/** No more of a named provider: "No more Burgerloop for me" (dev23); its "no" is the leaving. */
const NO_MORE_NAMED = new RegExp(`(?:^\\W*|[,;:]\\s*)[Nn]o more ${NAME}[^.!?;]{0,30} for (?:me|us)\\b`, 'u');
/** The end of a term is when the leaving happens, not a condition on it: "when the contract ends". */
const AT_TERM_END =
  /\b(?:when|once|after) (?:the|our|my|this) (?:current |fixed |initial |minimum )?(?:contract|subscription|plan|term|lease|policy|agreement|membership|billing period|year) (?:ends|ended|expires|expired|is up|was up|runs out|ran out|comes up|came up|finishes|finished)\b/gi;
/**
 * Money after a leaving already done: "I cancelled my subscription in May and was charged again" is
 * a billing dispute, which the corpus labels a refund, not a statement of leaving.
 */
const BILLED = /\b(?:charg\w*|bill(?:ed|ing)|debit\w*|refund\w*|invoic\w*)\b/i;
export function saysLeaving(
  text: string,
  /** Whether the message is read positive: "never going back" then praises the switch (dev-posts). */
  readPositive = false,
): boolean {
  if (REASON_FOR_LEAVING.test(text)) return true;
  const billed = BILLED.test(text);
  const praisesSwitch = readPositive || CAME_FROM.test(text);
  return clausesOf(text).some((raw) => {
    const clause = raw.replace(AT_TERM_END, ' ');
    const refused =
      clause.match(NOT_RENEWING) ??
      clause.match(NO_LONGER_CUSTOMER) ??
      (praisesSwitch ? null : clause.match(NOT_RETURNING)) ??
      clause.match(NO_MORE_NAMED);
    const m = refused ?? clause.match(LEAVING) ?? clause.match(SWITCHING_TO_NAME) ?? clause.match(NAMED_LEAVING);
    if (m && billed && /^(?:cancell?ed|ended|closed|terminated)\b/i.test(m[0])) return false;
    // "may" in lower case only: "in May" is a date.
    if (!m || MAYBE.test(clause) || /\bmay\b|^\W*May\b/.test(clause)) return false;
    // Set aside after it: "giving up my membership has never crossed my mind" (dev19).
    if (SET_ASIDE.test(clause.slice(m.index! + m[0].length))) return false;
    // No negator before the phrase in its clause: "never thought of switching to a new bank".
    return !negatedBefore(clause, m.index!, refused ? m.index! : m.index! + m[0].length);
  });
}

/**
 * Whether the message's only words of leaving are cancels of one booking or request (WIDE_CANCELLED_THING:
 * "cancel my table reservation for tonight, will book again soon"): the heads, which learned
 * "cancel" as leaving, flag such messages (dev28: 5 of 59 denied or look-alike leavings); the
 * veto takes churn away when the message says what goes on (CONTINUING) and no statement of leaving.
 */
export function cancelsOnlyThings(text: string, counts: ScopeCounts): boolean {
  const [said, denied] = counts.churn;
  return said === 0 && denied === 0 && /\bcancel/i.test(text) && CONTINUING.test(text) && !saysLeaving(text);
}
/** What goes on after the one booking cancelled: "rebook for June", "see you Thursday", "keeping the 15th". */
const CONTINUING =
  /\b(?:re-?book\w*|book(?:ing)? (?:again|another|a new)|see you|keep(?:ing)? the|carr(?:y|ies) on|as normal|reschedul\w*|next (?:week|month|time|one))\b/i;

/**
 * The clauses of a message, split at sentence ends and semicolons. The statement readers (leaving,
 * staying, upgrades) judge each on its own.
 */
export function clausesOf(text: string): string[] {
  return text.match(/[^.!?;\n]+[.!?;]*/g) ?? [];
}

/**
 * Whether a negator stands before a phrase found at `at` in its clause, up to `upTo`; one before a
 * comma, a dash or a "but" is another clause's ("I never thought I'd leave, but I'm ending my
 * contract", "couldn't resist, took the Gold tier").
 */
export function negatedBefore(clause: string, at: number, upTo: number): boolean {
  const from = Math.max(
    0,
    ...[...clause.slice(0, at).matchAll(/\bbut\b|\s[-–—]+\s|[,:]/gi)].map((b) => b.index + b[0].length),
  );
  return wordTokens(clause.slice(from, upTo)).some((t) => t.startsWith('NOT_') || /^(?:not|never|no)$/.test(t));
}

/**
 * A plain statement of staying: "I've decided to renew my gym membership", "we're sticking with
 * you", "just renewed our plan for another year". The churn heads hear "renew" and "membership"
 * beside leaving in the corpus and flag such messages (dev14); a clause that says staying, with no
 * maybe, no negator before it and no leaving word said anywhere in the message, is no churn.
 */
const STAYING =
  /\b(?:(?:(?:i|we)(?:['’]ve| have)? (?:just |happily |gladly |already )?(?:decided to|chose to|choose to|will|['’]ll|am going to|are going to|want to|plan to) (?:happily |gladly |definitely )?(?:renew|stay|stick (?:with|around)|keep (?:my|our) |remain (?:with|on|at))|(?:i|we)['’]ll (?:happily |gladly |definitely )?(?:renew|stay|stick (?:with|around)|remain (?:with|on|at))|(?:i['’]?m|we['’]?re|i am|we are|(?:my|our|the) (?:\w+ )?\w+ (?:is|are)) (?:happily |gladly |definitely )?(?:renewing|staying (?:with|put|on|for)|sticking (?:with|around)|keeping (?:my|our) |remaining (?:with|on|at)))|(?:^\W*|\b(?:i|we)(?:['’]ve| have)? )(?:just |happily |gladly |already )?(?:renewed|renewing|extended|extending) (?:my|our)|(?:^\W*|\b)(?:please|kindly) (?:renew|extend) (?:my|our)|(?:i|we)(?:['’]ll| will) (?:happily |gladly |just )?carry on with (?:you|your|the)|keep (?:my|our|the) (?:[\w-]+\s+)?(?:account|subscription|membership|plan|policy) (?:open|active|going)|renewal (?:is |has been |now )?confirmed|(?:i['’]?m|we['’]?re|i am|we are) (?:definitely |happily |still )?remaining (?:customers?|members?|subscribers?|users?|with))\b/i;
export function saysStaying(text: string, counts: ScopeCounts): boolean {
  if (counts.churn[0] > 0 || counts.churn_stay[1] > 0) return false;
  return clausesOf(text).some((clause) => {
    const m = clause.match(STAYING);
    // A decision taken ("after comparing we decided to stay") is no maybe, whatever its time words.
    const decided = m && /\b(?:decided|chose|renewed|extended)\b/i.test(m[0]);
    if (!m || (MAYBE.test(clause) && !decided) || /\bonly\b/i.test(clause)) return false;
    return !wordTokens(clause.slice(0, m.index! + m[0].length)).some((t) => t.startsWith('NOT_'));
  });
}
