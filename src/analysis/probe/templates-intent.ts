/**
 * Templates for intentions: churn said plainly or politely, and intentions said with a negation
 * (no churn, no refund, no upgrade, no recommendation). Written for the probe.
 */

/** Fails unless `churn`. */
export const CHURN = [
  "We're cancelling our {plan} plan at the end of the month",
  "We're moving to {competitor} next quarter",
  'Please close our account',
  'We will not renew when our contract ends in {month}',
  "I'm done with {product}, switching to {competitor}",
  'Cancel my subscription, the {aspect} is {na}',
  'Our team has decided to leave {product}',
  'This is our last month with {product}',
  "How do I cancel? We've found something better",
  "We've signed with {competitor} and will stop using {product} in {month}",
  "Unless the {aspect} is fixed this week, we're leaving",
  "Delete our workspace, we're done",
] as const;

/** Fails unless `churn`: leaving, said kindly. */
export const POLITE_CHURN = [
  "Thank you for everything over the years; we've decided not to renew our {plan} plan",
  "Just letting you know we'll be closing our account at the end of {month}. The team was lovely",
  "It's been a pleasure working with you, but we're moving to {competitor} next month",
  "We've enjoyed {product}, but our budget means we'll cancel when the contract ends",
  "Many thanks to {name} for the help; sadly we'll be cancelling our subscription",
  'Please accept this as our notice to cancel. Thanks for the support over {duration}',
  "We're consolidating tools and will be leaving {product} in {month}. No hard feelings",
  "With regret, we won't be renewing. {product} served us well",
  'Kindly cancel our {plan} subscription from {month}. Thank you for your help',
  "We have loved using {product}, but we'll be switching to {competitor} after this billing cycle",
] as const;

/** Fails when `churn`. */
export const NEGATED_CHURN = [
  'No plans to leave {product}, just wanted to flag the {aspect}',
  "We're not going anywhere, {product} works for us",
  "We won't be cancelling, the {aspect} issue is fixed now",
  "Not thinking about switching to {competitor}, don't worry",
  'To be clear, we are not cancelling our {plan} plan',
  "I'm not leaving, I just need help with the {aspect}",
  'We have no intention of moving to {competitor}',
  'Cancelling was never on the table for us',
  'We decided not to switch after all, staying on {product}',
  "Don't worry, we're not closing our account",
  'We are renewing for another year, not cancelling',
  'No reason to look at {competitor}, {product} does everything we need',
  "Someone asked if we'd leave over the {aspect}. We won't",
] as const;

/** Fails when `refund`. */
export const NEGATED_REFUND = [
  'No need for a refund, just fix the {aspect} please',
  "I don't want my money back, I want the {aspect} to work",
  'Not asking for a refund, only for a working {aspect}',
  "We don't need a refund for the double charge, just make sure it stops",
  'Keep the money, no refund needed, the {aspect} is sorted',
  "I'm not after a refund, just an answer about the {aspect}",
  "Please don't refund us, we'd rather keep the {plan} plan",
  'No refund necessary, the invoice for {month} was correct after all',
] as const;

/** Fails when `upgrade`. */
export const NEGATED_UPGRADE = [
  "We're not upgrading to {plan} this year",
  'No plans to upgrade, the current plan is enough for the {dept} team',
  "We won't be adding more seats for now",
  'Not moving to the {plan} plan until the {aspect} improves',
  'We decided against upgrading to {plan}',
  "I don't need the {plan} tier, thanks",
  "Upgrading isn't on our roadmap this quarter",
  "We'll stay on the basic plan, no upgrade for us",
] as const;

/** Fails when `recommend`. */
export const NEGATED_RECOMMEND = [
  'I would not recommend {product} to anyone',
  "Can't recommend {product}, the {aspect} is {na}",
  "I wouldn't suggest {product} to other teams",
  'Would not recommend the {aspect} to a friend',
  'Hard to recommend {product} right now',
  'I used to recommend {product}, not anymore',
  "No way I'd recommend this to another agency",
  "I can't recommend {product} in good conscience",
  'Would I recommend {product}? Not after this month',
] as const;

/** Neutral bases for the invariance tests: questions and notices. */
export const NEUTRAL = [
  'How do I export the {aspect} data to CSV?',
  'Where can I find the settings for the {aspect}?',
  'Is there a way to share the {aspect} with the {dept} team?',
  'We moved the {aspect} to the new workspace on {day}',
  'Can you send me the invoice for {month}?',
  "What's the user limit on the {plan} plan?",
  'Does the {aspect} work with {competitor} data?',
] as const;

/** Sentences that DIR tests append: clearly negative, clearly positive, churn. */
export const ADD_NEGATIVE = [
  'The {aspect2} crashed twice {time}',
  'Honestly the {aspect2} is a disaster',
  'Also the {aspect2} is {na}',
  'And support never answered',
  "I'm really fed up",
] as const;
export const ADD_POSITIVE = [
  'The {aspect2} is {pa} though',
  'Also, {name} from support was fantastic',
  'Love the {aspect2}',
  'Overall really happy with {product}',
  'Great work, team',
] as const;
export const ADD_CHURN = [
  "We're cancelling at the end of the month",
  'We will move to {competitor} when the contract ends',
  'Please close our account',
  "We won't be renewing",
] as const;
