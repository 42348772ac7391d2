import { describe, expect, it } from 'vitest';
import { saysUpgrading } from './upgrade-statement.js';

describe('a plain statement of an upgrade', () => {
  // Written for this test in the forms the read sets dev16, dev22, dev23 and dev25 showed missed.
  it.each([
    'Just upgraded to the Pro plan.',
    'we moved up to the Gold membership last week',
    'Please move me to the Unlimited plan from May.',
    'Added the sports pack to my TV account.',
    'We bought five more seats.',
    "I'm now on the Platinum tier and it's great",
    'Sign me up for the Premium cabin on the return leg.',
    'Ready to go premium.',
    'Upgrade to the family plan completed, thanks.',
    "Couldn't resist, took the business class seat.",
    // From dev28's misses, in sentences of this test's own.
    'Fifteen more seats for the sales team, please.',
    'Can you increase our data allowance to 100GB from next month?',
    'Booked premium economy for the flight home.',
    'We went ad-free on the podcast app today.',
    'Applied for the platinum card this morning.',
  ])('says upgrading: %s', (text) => expect(saysUpgrading(text)).toBe(true));

  it.each([
    'Not upgrading to Pro this year.',
    'Please remove the sports pack.',
    'If the price drops we might upgrade to Pro.',
    "We won't be adding seats.",
    // A lower tier is a downgrade.
    'Move me to the basic plan please.',
    'The upgrade broke my settings.',
    'Downgrade us to the Starter plan.',
    'The Pro plan is too expensive.',
    'I bought a new phone and the app crashes.',
    // A purchase told to be undone or to complain: `refund` or a complaint in the corpus.
    'The Gold upgrade was charged twice, please sort it out.',
    'I accidentally bought the premium bundle, can you put me back on standard?',
    'Bought the analytics add-on but it never loaded any data.',
    'Thought about buying more storage, then cleared out old files.',
    // Turned down in words the negators do not read, or put to the reader.
    "We've decided against moving up to the Max tier.",
    'The reminders to upgrade to the Gold plan are getting old, I am happy on Basic.',
    'Moving to the Premium package is not on the cards.',
    'Upgrade to the Business plan? After this week, seriously?',
    // Not a tier: a menu's first option, a hotel's family room, an account of another kind.
    'I picked the first option and it crashed.',
    'We got the family room and it was spotless.',
    'Switched to the business account for invoices.',
    "We don't need twenty more seats.",
    'Please do not increase my data allowance.',
    'If you double our storage for free we will stay.',
    'Booked economy this time, the premium cabin was too dear.',
    'Bought business cards for the two new starters.',
  ])('does not say upgrading: %s', (text) => expect(saysUpgrading(text)).toBe(false));
});

describe('an upgrade said in the read set dev29 shapes (my own words, 2026-12-05)', () => {
  it.each([
    'Just switched from 100Mb to your 900Mb fibre!',
    "I've moved to the Family plan so the kids can use it.",
    'Decided to go for the Gold membership after all.',
    'We signed Max up for the Platinum plan instead of Silver.',
    "I'd like to go up from the Starter plan to Pro next month.",
  ])('says upgrading: %s', (text) => expect(saysUpgrading(text)).toBe(true));
  it.each([
    'We switched from 900Mb to the 100Mb line to save money.',
    'My dad keeps telling me to go for the premium cover.',
    'We moved to the Family plan instead of paying for three premium accounts.',
  ])('does not: %s', (text) => expect(saysUpgrading(text)).toBe(false));
});

describe('an upgrade said in the read set dev30 shapes (my own words, 2026-12-05)', () => {
  it.each([
    'Paid the extra for a sea-view room this time.',
    'Treated ourselves to business class for the honeymoon.',
    'Switched from the basic account to the Premium account today.',
    'Moved my membership to the all-access one.',
    "We've gone for the plan without ads.",
  ])('says upgrading: %s', (text) => expect(saysUpgrading(text)).toBe(true));
  it('does not say it for a move down', () =>
    expect(saysUpgrading('Switched from the Premium account to the basic one to save money.')).toBe(false));
});
