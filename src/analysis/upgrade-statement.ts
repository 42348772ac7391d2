import { clausesOf, negatedBefore } from './intent-scope.js';

/**
 * A plain statement of an upgrade, done or asked for: "I just upgraded to the Deluxe Edition", "move
 * me to the Unlimited Max plan", "added the live TV pack to my account", "we've moved up to the
 * Comprehensive Plus policy", "finally took the Premium Economy seat". The corpus labels such
 * messages `upgrade` ("just upgraded to Pro, the extra automations are exactly what we needed"), but
 * the intentions' head, whose threshold leans to fewer false flags (second-stage.ts), misses many
 * that name another trade's tiers or add-ons (read sets dev16, dev22, dev23 and dev25: 81 of 178
 * missed). Like saysLeaving for churn, it adds the label the heads did not hear; the veto
 * (intent-scope.ts deniedOnly) still takes it away when the upgrade is only denied.
 */

/** Words that name a higher tier; a move to "the basic plan" is a downgrade. */
const HIGHER =
  '(?:premium|pro|plus|business|enterprise|gold|platinum|unlimited|max|deluxe|vip|ultimate|advanced|studio|comprehensive|first[- ]class|express|faster|bigger|higher|larger|top|elite|prestige|full[- ]service|family|team|all[- ]access|all[- ]inclusive|ad[- ]free|executive)';
/** What a tier is called in any trade. */
const TIER =
  '(?:plan|tier|edition|package|membership|policy|class|cover|subscription|pass|version|bundle|level|seat|suite|cabin|tariff|licen[cs]e|economy)';
const UPGRADING = new RegExp(
  [
    // The word itself, towards something: "upgraded to", "upgrading from the basic to", "upgrade our plan".
    '\\bupgrad(?:e|ed|es|ing)\\s+(?:(?:us|me|my|our|the)\\s+(?:[\\w-]+\\s+){0,2}?)?(?:to|from|into)\\b',
    `\\bupgrad(?:e|ed|es|ing)\\s+(?:my|our|the)\\s+(?:[\\w-]+\\s+)?${TIER}\\b`,
    '\\bupgrade (?:to [^.,;!?]{1,40} )?(?:completed|done|went through|is live|processed)\\b',
    // Up a step: "moved up to", "stepping up to", "going premium".
    '\\b(?:mov(?:e|ed|ing)|go(?:ing)?|went|gone|step(?:ped|ping|s)?|trad(?:e|ed|ing)) up (?:to|a (?:tier|plan|level)|from\\b[^.!?]{1,40}\\bto)\\b',
    '\\b(?:go|going|went|gone) (?:premium|pro|unlimited|gold|platinum|ad-free)\\b',
    // A higher tier asked for or taken: "move me to the Unlimited Max plan", "finally took the Premium
    // Economy seat", "I'm now on the VIP membership", "sign me up for the Gold tier".
    `\\b(?:move|switch|put|bump|transfer) (?:me|us|my account|our account) (?:up )?(?:to|into|in|onto) (?:the |a )?(?:[\\w-]+\\s+){0,2}?${HIGHER}\\b(?:\\s+[\\w-]+){0,2}?\\s*${TIER}?`,
    `\\b(?:took|taken|taking|take|went for|gone for|going for|go for|got|getting|get|bought|buying|buy|purchased|booked|paid for|applying for|applied for|chose|picked|signed up for|sign (?:me|us) up for|said yes to|now on|moving to|move to|moved to|switch(?:ed|ing)? to|signed (?:[\\w-]+ ){1,2}up for) (?:the |a |an )?(?:[\\w&-]+\\s+){0,2}?${HIGHER}(?:\\s+[\\w&-]+){0,2}?\\s+${TIER}s?\\b`,
    '\\b(?:took|taken|booked|got) (?:a|the) (?:[\\w-]+ )?suite\\b',
    // Paid more for more, a treat, a move from one thing to a higher one, no more ads (dev30):
    // "paid the extra for first class", "treated myself to first class", "switched from the
    // everyday account to the Platinum account", "gone for the Standard plan without ads".
    '\\bpaid (?:the |an |a bit )?extra (?:for|to get|to have)\\b',
    `\\btreat(?:ed|ing)? (?:myself|ourselves|us|me|the family|the kids) to (?:a |an |the )?(?:[\\w-]+\\s+){0,2}?${HIGHER}\\b`,
    `\\b(?:switch|mov|chang|swapp?)(?:e|ed|es|ing)? (?:[\\w'’-]+ ){0,4}?from\\b[^.!?]{1,40}?\\bto (?:the |a |an |my |our |your )?(?:[\\w&-]+\\s+){0,2}?${HIGHER}\\b`,
    `\\b(?:switch|mov|put|bump|transferr?)(?:e|ed|es|ing)? (?:my|our) [\\w-]+ (?:up )?(?:to|into|onto) (?:the |a |an )?(?:[\\w-]+\\s+){0,2}?${HIGHER}\\b`,
    '\\b(?:gone|went|going|go|switched|moved|upgraded)\\b(?=[^.!?]{0,40}\\b(?:without (?:ads|adverts|advertising)|ad-free)\\b)',
    // A card by its metal, not "business cards" ("applied for the platinum card"; dev28).
    '\\b(?:took|got|getting|get|applied for|applying for|switched to|moved to) (?:the |a |an |my )?(?:gold|platinum|premium|black|metal) (?:credit |debit )?card\\b',
    // More of what is metered, asked for or done, and seats by the number ("Twenty more licences,
    // please", "increase my data cap to 50GB", "doubled our storage"; dev28).
    '\\b(?:\\d+|two|three|four|five|six|ten|twelve|fifteen|twenty|fifty) (?:more|extra) (?:seats|licen[cs]es|users|lines|logins)\\b',
    '\\b(?:increas(?:e|ed|ing)|rais(?:e|ed|ing)|doubl(?:e|ed|ing)|boost(?:ed|ing)?|bump(?:ed|ing)?) (?:up )?(?:my|our|the) (?:[\\w-]+ )?(?:data cap|data allowance|allowance|storage|bandwidth|seat count|user limit|speed)\\b',
    // More bought: an add-on, a bolt-on, a pack, seats, lines or storage added.
    "\\b(?:add(?:ed|ing)?|buy|bought|buying|purchas(?:e|ed|ing)|getting|took|taken|taking|grabb?(?:ed|ing)?|ordered|ordering) (?:the |a |an |another |extra |more |(?:\\d+|two|three|four|five|ten) (?:more |extra )?)?(?:[\\w&'’-]+\\s+){0,3}?(?:add-?on|bolt-?on|pack|seats?|licen[cs]es?|users|storage|bandwidth|credits|lines?|upgrade)\\b",
  ].join('|'),
  'i',
);
/** Not said: a condition, a wish about later, a price asked only, someone else's upgrade, removal. */
const NOT_SAID =
  /\b(?:if|unless|until|only when|in case|remove|removing|removed|drop|dropping|dropped|downgrad\w*|cancel\w*|possible|possibly|maybe|might|considering|thought about|thinking about|rather than|instead(?! of (?:the |my |our |a |an )?(?:basic|bronze|standard|free|economy|lite|starter|silver|cheaper|smaller|lower)\b)|hard pass|just for|(?:telling|told|tells|asking|asked|wants|wanted|pushing|pushed|nagging) (?:me|us) to)\b/i;
/**
 * A purchase told to complain or to be undone: "the upgrade went through twice, please refund it",
 * "I accidentally bought the premium bundle", "bought the add-on but it never worked". The corpus
 * labels these `refund` or a complaint, not `upgrade`.
 */
const UNDONE = /\b(?:refund\w*|money back|accidental\w*|by mistake|reverse|charged twice|went through twice)\b/i;
/** An upgrade turned down in words the scope's negators do not read: "decided against", "shelved", "not interested". */
const TURNED_DOWN =
  /\b(?:not interested|decided against|shelved|on the cards|change my mind|stop (?:asking|offering|pushing|nagging)|pop-?ups?|nag\w*|unnecessary|no need|(?:don['’]?t|do not|doesn['’]?t) need|(?:reminders?|e-?mails?|messages?|ads?|banners?|prompts?|offers?) (?:to|about) upgrad\w*|(?:happy|staying|stay|remain\w*|sticking|stick) (?:on|with) (?:the |my |our )?(?:basic|free|current|standard|base|starter|lite))\b/i;
const BOUGHT_BUT = /\b(?:bought|purchased|paid for|took|taken|signed up for|upgraded)\b[^.!?;]*\bbut\b/i;

/** A metered amount moved up: "switched from 67Mb to your 500Mb fibre" (dev29). */
const AMOUNT_FROM_TO =
  /\bfrom (?:the |my |our |a )?(\d+(?:\.\d+)?)\s?(mb|mbps|meg|gb|gbps|gig|tb)\b[^.!?]{0,20}?\bto (?:the |your |a |our |my )?(\d+(?:\.\d+)?)\s?(mb|mbps|meg|gb|gbps|gig|tb)\b/i;
const megabytes = (n: string, unit: string) => Number(n) * (/^t/i.test(unit) ? 1e6 : /^g/i.test(unit) ? 1e3 : 1);
function amountMovedUp(clause: string): boolean {
  const m = clause.match(AMOUNT_FROM_TO);
  return !!m && megabytes(m[3], m[4]) > megabytes(m[1], m[2]);
}

export function saysUpgrading(text: string): boolean {
  if (UNDONE.test(text) || TURNED_DOWN.test(text)) return false;
  return clausesOf(text).some((clause) => {
    const m = clause.match(UPGRADING) ?? (amountMovedUp(clause) ? clause.match(AMOUNT_FROM_TO) : null);
    if (!m || NOT_SAID.test(clause) || BOUGHT_BUT.test(clause)) return false;
    // Put to the reader, not said: "Upgrade to the Plus membership? After that experience?"
    if (/^\W*$/.test(clause.slice(0, m.index)) && /\?\s*$/.test(clause)) return false;
    // No negator before it in its clause ("we won't be adding seats"), as saysLeaving reads them.
    return !negatedBefore(clause, m.index!, m.index! + m[0].length);
  });
}
