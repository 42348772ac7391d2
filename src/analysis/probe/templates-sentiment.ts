/**
 * Templates for polarity: clear statements, negation both ways, and contrast. Written for the probe;
 * slots are filled from vocabulary.ts. No final punctuation unless it is part of the meaning (the
 * generator adds it per register).
 */

export const CLEAR_POSITIVE = [
  'The {aspect} is {pa}',
  "Really happy with the {aspect}, it's {pa}",
  'I love the new {aspect}',
  'The {aspect} in {product} is {pa} and saves us hours every week',
  'Great job on the {aspect}, the whole {dept} team loves it',
  '{name} from support sorted out our {aspect} question in minutes, thank you',
  '{product} has been {pa} for us since day one',
  'Switching to {product} was the best decision we made this year',
  'The latest update made the {aspect} so much better',
  'Honestly impressed with how {pa} the {aspect} is',
  'We rolled out the {aspect} to the {dept} team and everyone is delighted',
  'Big thanks for the {aspect}, it works beautifully',
] as const;

export const CLEAR_NEGATIVE = [
  'The {aspect} is {na}',
  "Really disappointed with the {aspect}, it's {na}",
  'I hate the new {aspect}',
  'The {aspect} keeps crashing and we lose work every day',
  'The {aspect} has been {na} ever since the update',
  'Support took {wait} to answer about the {aspect}, unacceptable',
  'The {aspect} is {na} and nobody replies to our tickets',
  "Worst {aspect} I've used in years",
  'The {aspect} in {product} is {na}, a total waste of money',
  'Terrible experience with the {aspect} {time}',
  'Every time I open the {aspect} it freezes',
  'We were charged twice again and the {aspect} is still {na}',
] as const;

/** A negative word negated: fails when read negative. */
export const NEGATED_NEGATIVE = [
  "The {aspect} wasn't {nm} at all",
  "Setting up the {aspect} wasn't {nm}",
  'No complaints about the {aspect} so far',
  'Never had an issue with the {aspect}',
  "The {aspect} hasn't crashed once since we started",
  'Not a single problem with the {aspect} in {duration}',
  "I can't fault the {aspect}",
  'Nothing wrong with the {aspect}, it does what it says',
  'The {aspect} is not {nm} at all',
  "We haven't had any downtime since we moved to {product}",
  'The {aspect} is no longer {nm}',
  'Never once been let down by the {aspect}',
  "Didn't find the {aspect} {nm} in the slightest",
  'Zero bugs in the {aspect} so far',
  "The {aspect} isn't {nm} like the old one was",
] as const;

/** A positive word negated: fails when read positive. */
export const NEGATED_POSITIVE = [
  'The {aspect} is not exactly {pn}',
  'The {aspect} is hardly {pn}',
  "The {aspect} isn't {pn} at all",
  'The {aspect} is no longer {pn}',
  'The {aspect} was never {pn}, to be honest',
  "I wouldn't call the {aspect} {pn}",
  "Can't say the {aspect} is {pn}",
  "I don't find the {aspect} {pn} anymore",
  'The {aspect} is far from {pn}',
  'Not impressed with the {aspect}',
  "The {aspect} doesn't feel {pn} at all",
  'Nobody on the {dept} team finds the {aspect} {pn}',
  'The {aspect} used to be {pn}, not anymore',
] as const;

/** The last clause is negative: fails unless read negative. */
export const CONTRAST_NEGATIVE = [
  'Loved {product} until the last update broke the {aspect}',
  'The {aspect} is nice, but the {aspect2} is {na}',
  "At first the {aspect} was {pa}, now it's {na}",
  "The {aspect} looks great, but it's {na} in practice",
  'Although the {aspect} is {pa}, the {aspect2} is {na}',
  'The {aspect} is {pa}. However, the {aspect2} has been {na} for weeks',
  "Started out loving the {aspect}, but lately it's {na}",
  'Good idea on paper, but the {aspect} is {na}',
  'Support is friendly, but nobody has fixed the {aspect} in {wait}',
  'It used to be {pa}; these days the {aspect} is {na}',
  'The price is fair, but the {aspect} is {na} and that matters more',
  'Nice design, shame the {aspect} is {na}',
] as const;

/** The last clause is positive: fails unless read positive. */
export const CONTRAST_POSITIVE = [
  'The setup was {nm}, but now the {aspect} is {pa}',
  "The {aspect} was {na} at first, now it's {pa}",
  "Although the {aspect} took a while to learn, it's {pa} now",
  "The {aspect} had a rough start. However, it's been {pa} since the update",
  'Pricey, but the {aspect} is worth every penny',
  'A few bugs early on, but overall the {aspect} is {pa}',
  'I was sceptical at first, but the {aspect} won me over',
  "Onboarding was {nm}, yet the {aspect} is {pa} now that we're set up",
  'The {aspect2} could be better, but the {aspect} is {pa} and we love it',
  'Despite the outage last week, the {aspect} has been {pa}',
  'It took {name} a week to learn, but now the whole team loves the {aspect}',
] as const;
