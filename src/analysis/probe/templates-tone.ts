/**
 * Templates for complaints that do not say "bad": sarcasm and irony (praise words, negative
 * meaning), polite complaints (courtesy words, negative meaning) and factual complaints (no
 * sentiment word at all). Written for the probe.
 */

/** Fails when read positive; also reported: how often it is not read negative. */
export const SARCASM = [
  'Oh wonderful, another {issue}',
  'Great, the {aspect} lost my work again',
  'Thanks for nothing, {product}',
  'Love how the {aspect} logs me out every five minutes',
  'Just what I needed, another {issue} right before the deadline',
  'Brilliant, the {aspect} is down again',
  'Wow, {wait} to answer a ticket. Impressive',
  'Fantastic, the {aspect} broke again {time}',
  'So glad we pay for {plan} to stare at a loading spinner',
  'What a great time for the {aspect} to stop working, right before month end',
  'Nothing says premium like a {issue} every week',
  'Oh good, the {aspect} ate my changes. Again',
  'Really loving the third {issue} this month',
  'Amazing how the {aspect} manages to get slower with every update',
  'Cool, so the {aspect} just deletes things now',
  'Perfect, the {aspect} picked the busiest day of the year for another {issue}',
] as const;

/** Fails when read positive. */
export const POLITE_COMPLAINT = [
  "I'd appreciate it if the invoices stopped being wrong",
  'Could you kindly look into why the {aspect} keeps {failing}?',
  'It would be great if the {aspect} actually {worked}',
  'Thanks for the reply, but the {aspect} is still {failing}',
  'Sorry to bother you again, the {aspect} is still {failing}',
  "We'd be grateful if someone could finally fix the {aspect}",
  'With respect, this is the third time the {aspect} has failed us this month',
  'I must say the {aspect} has been a letdown lately',
  'Would you mind explaining why we were charged twice for {month}?',
  "I'd be thankful for an update, as our ticket about the {aspect} has been open for {wait}",
  "Please could the {aspect} stop {failing}? It's costing us time",
  'Just a gentle reminder that the {aspect} is still {failing} for the {dept} team',
  'I hate to complain, but the {aspect} keeps {failing}',
  'We really value {product}, which is why the {aspect} {failing} every day is so hard to accept',
] as const;

/** Fails unless read negative: the facts are bad, no word says so. */
export const FACTUAL_COMPLAINT = [
  'The {aspect} has been stuck at {pct} {since}',
  'The {aspect} has returned a 500 error {since}',
  'We were charged twice for {month}',
  "The {aspect} stopped syncing on {day} and hasn't resumed",
  'Ticket {ticket} has had no reply for {wait}',
  "The {aspect} shows last week's numbers, not today's",
  'Our invoice lists {seats} seats; we have 12',
  'The {aspect} logs us out after every click',
  "{count} of our users haven't been able to log in {since}",
  'The {aspect} takes 40 seconds to load',
  "Half of yesterday's orders are missing from the {aspect}",
  'The {aspect} sent the same email to our customers five times',
  'Our data from {month} is gone from the {aspect}',
  'The app closes as soon as I open the {aspect}',
  'Nobody has answered ticket {ticket} {since}',
] as const;
