/**
 * Sarcasm by its marks: praise beside a failure it cannot mean, ironic idioms, scare quotes. (The
 * rules that use them: ../composition.ts.)
 */
import { wordTokens } from '../word-features.js';
import { MARKER, TIME_TURN } from './contrast.js';
import { FAILURE, MENDED, MENDING, SERVICE_FAILED, toldFailure, undeniedFailures } from './failures.js';
import { CLEAR, lean, scopedWords, signOf, words } from './reading.js';
import { complaint, praise } from './vocabulary.js';

/** A short opening of praise before what happened. */
const PRAISE_OPENING =
  /^\W*(?:(?:oh|ah|ugh|wow|well|yay|just|so|really|truly|gotta|i|big|huge|many|a)\s+)*(?:great|wonderful|brilliant|fantastic|perfect|amazing|lovely|awesome|nice|cool|super|excellent|good|terrific|marvell?ous|splendid|fabulous|impressive|incredible|outstanding|superb|stellar|bravo|kudos|congrats|well done|lucky me|yay|woo-?hoo|hooray|five stars|5 stars|10\/10|ten out of ten|full marks|thrilled|delighted|overjoyed|ecstatic|stoked|way to go|nice going|(?:so |really )?impressed(?: by| with)?|nice one|top notch|best \p{L}+(?: \p{L}+){0,2} ever|love(?: it)?|loving(?: it)?|glad|thanks|thank you|thx|ty|cheers|just what (?:i|we) (?:needed|wanted)|exactly what (?:i|we) (?:needed|wanted)|what a (?:great|lovely|perfect|wonderful|fantastic|nice|pleasant) (?:time|day|moment|way|start|surprise))\b(?:\s+(?:job|work|stuff|news|one|a lot|so much|timing))?(?:\s+@\w+)?(?:\s*[,!.:…—-]+|(?<=\b(?:love|loving|adore|enjoy|enjoying|thrilled|delighted|stoked))\s+(?=\p{L}+ing\b)|\s+(?:i|we)\s+(?=paid|bought|booked|ordered|chose|picked|upgraded|signed)|\s+(?:how|that|when|for|on|in advance for|the way|to see)|\s+to\s+(?:the\s+|you\s+)?[\p{L}@]+(?:\s+\p{L}+)?\s+for|(?:\s+\p{L}+){1,2}\s*:)\s*/iu;

export const SARCASM_CUE =
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
export const PRAISE_CLOSING =
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
export const IRONIC =
  /\b(?:exactly (?:how|what|where|the \p{L}+) (?:i|we) (?:(?:always )?wanted|hoped|was hoping|were hoping|needed|signed up for|asked for|planned|dreamed of|had in mind)|just what (?:i|we) (?:needed|wanted|was after)|never gets old|(?:impressive|stellar|brilliant|great|outstanding|excellent|classy|flawless|top|nice|fine)(?: work| job| stuff| service)?,? as (?:always|usual|ever)|stellar (?:work|job|service)|(?:a )?rare talent|raised the bar|outd(?:id|one) (?:themselves|yourselves|yourself|itself)|character[- ]building|truly unforgettable|money well spent|what a time to be (?:alive|a customer)|best \p{L}+(?: \p{L}+)? ever|that went (?:great|well|brilliantly|perfectly|swimmingly|smoothly)|(?:so|really|very) (?:glad|happy|pleased) (?:i|we) (?:paid|bought|booked|chose|signed up|upgraded|renewed)|genius|#blessed|#winning|what a (?:surprise|shock)|(?:big |what a |color me |colour me )?surprised?,? surprise|who (?:would have|would['’]?ve|could have) (?:thought|guessed)|who knew|shocker|how (?:lovely|nice|convenient|wonderful|delightful|fun|charming)|(?:so|super|really|very|how) convenient|the best part(?: is|:|\?| was)|(?:good|great|nice) to know|keep up the (?:good|great|amazing|fantastic) work|(?:totally|so|definitely|really) worth (?:it|the (?:money|wait|price|hassle))|world[- ]class|1[01]\/10,? would|(?:couldn['’]?t|could not|can['’]?t) be (?:happier|more (?:thrilled|pleased|delighted))|what (?:more|else) could (?:i|we|you|anyone) (?:ask|want|wish) for|way to go|nice going|love that for (?:me|us)|it['’]s the little things|best (?:\p{L}+ ){1,3}(?:i|we)['’]?(?:ve| have)? ever (?:spent|had|made|paid)|new (?:personal |world )?record|thanks for the (?:challenge|adventure|workout|lesson|character building)|nothing (?:beats|like|quite like|better than)|what would (?:life|i|we) (?:be|do) without|(?:now )?that['’]?s what (?:i|we) call|don['’]?t you (?:just )?love (?:it )?when|me neither|nothing better to do|just what (?:every|any|all) \p{L}+ (?:dreams? of|wants?|needs?|hopes? for)|(?:so|how|very) kind of (?:you|them)|keeping (?:life|things|me|us) (?:exciting|interesting|on (?:my|our) toes)|(?:really |truly )?(?:making|makes) my (?:day|week|morning|evening|night|year|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(?:amazing|great|brilliant|fantastic|wonderful|perfect|impressive)\W+(?:truly|just|simply|really|absolutely|so) (?:amazing|great|brilliant|fantastic|wonderful|perfect|impressive)|impressive (?:stuff|work|job)|(?:very|so|how|most) generous|(?:recommend|perfect|ideal|great) (?:it |this )?(?:to|for) anyone who (?:loves?|enjoys?|likes?)|if you (?:love|enjoy|like|fancy))\b|🙄|🙃|👏|😒|🤦/iu;

/** A short phrase in quotes (double, or single ones that open after a space: not an apostrophe). */
export const SCARE_QUOTES = /["“][^"”]{2,30}["”]|(?:^|[\s(])['‘][^'’]{2,30}['’](?=[\s.,!?:;)]|$)/u;

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

/** Where what is thanked for ends and its circumstances begin: "for staying late | when the part arrived late". */
const CIRCUMSTANCE = /\b(?:when|after|because|since|despite|even though|while)\b/iu;

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
  const thankedFor = thanked?.[1].split(CIRCUMSTANCE)[0] ?? '';
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
    // A failure turned round after a marker or by time is a story that ends well: "the first
    // delivery was missing the remote, but it turned up the next morning. Exactly what I wanted!",
    // "half my order never turned up. Two months later: everything arrives. I couldn't be happier."
    // (Or by "now": "… the import error. Everything runs smoothly now and I couldn't be happier.")
    const turn = [...rest.matchAll(MARKER), ...rest.matchAll(TIME_TURN), ...rest.matchAll(/\b(?:now|nowadays)\b/giu)]
      .sort((a, b) => a.index - b.index)
      .at(-1);
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
  const failures = undeniedFailures(rest);
  // Thanks for a good thing, the failure only its circumstance: "Thank you for staying late to
  // finish my service when the part arrived late" (as THANKS_FOR above).
  // (Only when the thanked sentence holds every failure: "thanks for the warm welcome; the heating
  // didn't work" complains.)
  const thanksFor =
    m?.[0] && /\b(?:thanks?|thank you)\b/iu.test(m[0])
      ? (/\bfor\s*$/iu.test(m[0]) ? rest : (rest.match(/^\W*for\b(.*)$/isu)?.[1] ?? '')).match(/^[^.!?;]*/u)![0]
      : '';
  if (
    thanksFor &&
    !toldFailure(thanksFor.split(CIRCUMSTANCE)[0]) &&
    !toldFailure(rest.slice(rest.indexOf(thanksFor) + thanksFor.length))
  )
    return 0;
  // A failure told, then put right by time: "… the import error. Everything runs smoothly now and I
  // couldn't be happier."
  const lastFailure = failures.at(-1);
  const tail = lastFailure ? rest.slice(lastFailure.index + lastFailure[0].length) : '';
  if (/\b(?:now|these days|since then|ever since|nowadays)\b/iu.test(tail) && !toldFailure(tail) && lean(tail) >= CLEAR)
    return 0;
  // After a praise opening, a failure turned round by a marker or by time is a story that ends well:
  // "Exactly what I wanted! The first delivery was missing the remote, but it turned up the next morning."
  const turnedAt = [...rest.matchAll(MARKER), ...rest.matchAll(TIME_TURN)].sort((a, b) => a.index - b.index).at(-1);
  if (
    m?.[0] &&
    lastFailure &&
    turnedAt &&
    turnedAt.index > lastFailure.index &&
    !toldFailure(rest.slice(turnedAt.index + turnedAt[0].length)) &&
    !SERVICE_FAILED.test(rest.slice(turnedAt.index + turnedAt[0].length))
  )
    return 0;
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
