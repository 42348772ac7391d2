import { describe, expect, it } from 'vitest';
import {
  cancelsOnlyThings,
  deniedOnly,
  saysLeaving,
  saysStaying,
  scopeCounts,
  scopeInputCount,
  scopeInputs,
} from './intent-scope.js';

describe('intention scope', () => {
  it('tells a said intention from a denied one', () => {
    expect(scopeCounts('We will cancel next month').churn).toEqual([1, 0]);
    expect(scopeCounts('No plans to leave you, just flagging the bug').churn).toEqual([0, 1]);
    expect(scopeCounts("We won't be cancelling our plan").churn).toEqual([0, 1]);
    expect(scopeCounts('No need for a refund, just fix it').refund).toEqual([0, 1]);
    expect(scopeCounts('I want a refund').refund).toEqual([1, 0]);
  });

  it('heads v21: "stop suggesting", a withdrawn request, "wouldn\'t help", "never wanted one", add-ons, elsewhere', () => {
    expect(deniedOnly('upgrade', scopeCounts('Stop suggesting the premium tier, we are fine'))).toBe(true);
    expect(deniedOnly('refund', scopeCounts('Please withdraw the refund request I sent by mistake'))).toBe(true);
    expect(deniedOnly('refund', scopeCounts("A refund wouldn't help, I need the boiler repaired"))).toBe(true);
    expect(deniedOnly('refund', scopeCounts('Your agent offered a refund but I never asked for one'))).toBe(true);
    expect(deniedOnly('upgrade', scopeCounts("The quote lists an upgrade, we don't need one"))).toBe(true);
    // "it" is as often the product: a refund asked for stays asked for.
    expect(deniedOnly('refund', scopeCounts("Refund me please, I don't need it"))).toBe(false);
    // Leaving is not denied by "one": "cancel it, I don't need one" still leaves.
    expect(deniedOnly('churn', scopeCounts("Cancel my line, I don't need one anymore"))).toBe(false);
    // "the Pro add-on" names a product, not a wish to add; "don't add seats" still denies.
    expect(scopeCounts('The invoice has the Pro add-on, we do not want to upgrade').upgrade).toEqual([0, 1]);
    expect(scopeCounts("We don't need the add-on").upgrade).toEqual([0, 1]);
    // "elsewhere" is leaving on its own, and the complement of a leaving word after one.
    expect(scopeCounts('We are looking elsewhere').churn).toEqual([1, 0]);
    expect(deniedOnly('churn', scopeCounts("We won't be moving our 40 licences elsewhere"))).toBe(true);
    expect(deniedOnly('churn', scopeCounts('No plans to look elsewhere'))).toBe(true);
    // "not needed", "rather than", "happy on the … tier", "cancel the refund", "reverse".
    expect(deniedOnly('refund', scopeCounts('A refund is not needed'))).toBe(true);
    expect(deniedOnly('refund', scopeCounts('Rather than a refund, please send a replacement'))).toBe(true);
    expect(deniedOnly('upgrade', scopeCounts("We're fine with the basic tier"))).toBe(true);
    expect(scopeCounts('Please cancel the refund, we kept the tickets').churn).toEqual([0, 0]);
    expect(deniedOnly('refund', scopeCounts('Please cancel the refund, we kept the tickets'))).toBe(true);
    expect(scopeCounts('Please cancel my order from yesterday').churn).toEqual([0, 0]);
    expect(scopeCounts('Please cancel my subscription').churn).toEqual([1, 0]);
    expect(deniedOnly('refund', scopeCounts("Don't reverse the charge, it was us"))).toBe(true);
  });

  it.each([
    'Please end my gym membership from next month',
    'Close our joint account, we have moved it',
    "We're unsubscribing from the meal kit service",
    'Porting my number out this week',
    "I'm switching to a different energy supplier in May",
    'From now on we shop with another store',
    'We are taking our business elsewhere',
  ])('says leaving: %s', (text) => expect(saysLeaving(text)).toBe(true));

  it.each([
    'How do I close my account?',
    'If the price goes up again we will switch to another provider',
    'I never thought of cancelling my membership',
    'We moved a guest to another hotel for the night',
    'Please cancel my order, I will reorder tomorrow',
    'My data should be deleted after I close my account',
  ])('does not say leaving: %s', (text) => expect(saysLeaving(text)).toBe(false));

  it('heads v21 (dev5): a complement past the reach, weighed then stayed, "fine without", "absolutely not", misspellings', () => {
    expect(deniedOnly('upgrade', scopeCounts("We won't be moving up to the bigger Enterprise tier"))).toBe(true);
    expect(deniedOnly('churn', scopeCounts('Was about to cancel, changed my mind'))).toBe(true);
    expect(deniedOnly('churn', scopeCounts('We considered switching, and decided to stick with you'))).toBe(true);
    expect(deniedOnly('churn', scopeCounts('We are switching, decided to stay with the old bank'))).toBe(false);
    expect(deniedOnly('refund', scopeCounts('Happy to manage without a refund this time'))).toBe(true);
    expect(deniedOnly('refund', scopeCounts('We can do without a refund, just fix it'))).toBe(true);
    // "without" as a lack is still a condition: "without a refund we will leave" asks for one.
    expect(deniedOnly('refund', scopeCounts('Without a refund I will dispute the charge'))).toBe(false);
    expect(deniedOnly('upgrade', scopeCounts('Upgrade to Pro? Definitely not.'))).toBe(true);
    expect(deniedOnly('recommend', scopeCounts('would never reccomend this place'))).toBe(true);
  });

  it.each([
    "I'm done with this bank for good.",
    'Just asked for my PAC code.',
    'Ported my number yesterday.',
    "You've lost a loyal customer.",
    'Moving my pension to a different provider this month.',
    'Time to look for a new broadband provider.',
    'Ending the contract at the end of the month, please confirm.',
  ])('heads v21 (dev5) says leaving: %s', (text) => expect(saysLeaving(text)).toBe(true));

  it.each([
    'Finally ditched Harbourline for a local credit union.',
    'moved to Streamly today. so long Reelbox',
    'Q: What is the main reason you are leaving us? A: a cheaper offer.',
  ])('heads v21 (dev8) says leaving: %s', (text) => expect(saysLeaving(text)).toBe(true));

  it.each(['Left a review for the driver.', 'So long as it works, we are happy.'])(
    'heads v21 (dev8) does not say leaving: %s',
    (text) => expect(saysLeaving(text)).toBe(false),
  );

  it('denies a refund or an upgrade answered no, set aside or declined (heads v21, dev7 and dev8)', () => {
    expect(deniedOnly('refund', scopeCounts('Getting my money back is not what I am after.'))).toBe(true);
    expect(deniedOnly('refund', scopeCounts('Q: Would you like a refund? A: No, these things happen.'))).toBe(true);
    expect(deniedOnly('refund', scopeCounts('No need to give me any money back, just fix it.'))).toBe(true);
    expect(deniedOnly('upgrade', scopeCounts('Upgrade to Premium? Not a chance.'))).toBe(true);
    expect(deniedOnly('upgrade', scopeCounts('Please remove me from the upgrade mailing list.'))).toBe(true);
  });

  it.each([
    'Goodbye, Streamwise. The new service has everything I watch.',
    'This is my final month as a PowerCo customer.',
    'My cancellation request is attached, please process it.',
    "Enough is enough, I'm switching to Lumen Broadband.",
  ])('heads v21 (dev9) says leaving: %s', (text) => expect(saysLeaving(text)).toBe(true));

  it.each([
    'Goodbye and thanks for the help today!',
    "I'm switching to the annual plan next month.",
    'We switched to dark mode and the app looks great.',
  ])('heads v21 (dev9) does not say leaving: %s', (text) => expect(saysLeaving(text)).toBe(false));

  it('denies a refund not looked for, or answered "not needed" (heads v21, dev9)', () => {
    expect(deniedOnly('refund', scopeCounts("I'm not asking for a refund or credit, only an apology."))).toBe(true);
    expect(deniedOnly('refund', scopeCounts('A refund? Not needed, the replacement is fine.'))).toBe(true);
    expect(deniedOnly('refund', scopeCounts('I want a refund, the replacement never came.'))).toBe(false);
  });

  it.each(['Please end my season pass from next month.', 'Terminate our energy tariff at the end of the fix.'])(
    'heads v21 (dev6) says leaving: %s',
    (text) => expect(saysLeaving(text)).toBe(true),
  );

  it('keeps staying words apart: a denied renewal is a leaving', () => {
    const c = scopeCounts("We won't renew our contract");
    expect(c.churn_stay).toEqual([0, 1]);
    expect(c.churn).toEqual([0, 0]);
    expect(scopeInputs('churn', c)).toEqual([0, 0, 0, 1]);
  });

  it('denies the first leaving or staying word of a negation, not the other group after it', () => {
    const c = scopeCounts('We will NOT be leaving at renewal, count us in');
    expect(c.churn).toEqual([0, 1]);
    expect(c.churn_stay).toEqual([0, 0]);
    expect(deniedOnly('churn', c)).toBe(true);
    expect(deniedOnly('churn', scopeCounts("We're not cancelling before the renewal date"))).toBe(true);
    // The other way round: a denied renewal followed by a leaving word in its scope is still churn.
    const stay = scopeCounts("We won't renew and will move to another tool");
    expect(stay.churn_stay).toEqual([0, 1]);
    expect(deniedOnly('churn', stay)).toBe(false);
    // Words of the same group after the first stay denied: "won't cancel or leave".
    expect(scopeCounts("We won't cancel or leave").churn).toEqual([0, 2]);
  });

  it('counts a denial only near its negator, and not in a question', () => {
    expect(scopeCounts("I can't believe I have to ask for a refund").refund).toEqual([1, 0]);
    expect(scopeCounts("Why can't I cancel my plan?").churn).toEqual([1, 0]);
    expect(scopeCounts("I can't wait to cancel this").churn).toEqual([1, 0]);
    expect(scopeCounts("We won't be adding more seats for now").upgrade).toEqual([0, 2]);
  });

  it('reads a negator in a condition or an idiom as no denial', () => {
    expect(scopeCounts("If the price doesn't come down we'll switch").churn).toEqual([1, 0]);
    expect(scopeCounts("Without SSO we'll migrate at the end of the year").churn).toEqual([1, 0]);
    expect(scopeCounts("Can't recommend it enough to other teams").recommend).toEqual([1, 0]);
    expect(scopeCounts("I couldn't recommend it more").recommend).toEqual([1, 0]);
    expect(scopeCounts("Can't recommend it, the sync loses data").recommend).toEqual([0, 1]);
    expect(scopeCounts("I can't recommend them any more").recommend).toEqual([0, 1]);
  });

  it('takes a label away only when its words are denied and never said', () => {
    expect(deniedOnly('refund', scopeCounts('No need for a refund, just fix it'))).toBe(true);
    expect(deniedOnly('refund', scopeCounts('No refund yet. I want my refund today'))).toBe(false);
    expect(deniedOnly('upgrade', scopeCounts('No plans to upgrade this year'))).toBe(true);
    expect(deniedOnly('churn', scopeCounts("We're not cancelling, just asking"))).toBe(true);
    // A denied staying word is churn: nothing is taken away.
    expect(deniedOnly('churn', scopeCounts("We won't renew, we won't stay"))).toBe(false);
    // Requests keep their negators: "can't export" is the support request itself.
    expect(deniedOnly('support_request', scopeCounts("I can't get help with the export"))).toBe(false);
  });

  it('ends a denial at punctuation', () => {
    const c = scopeCounts("I don't like the new menu, we will cancel");
    expect(c.churn).toEqual([1, 0]);
  });

  it('gives each label its own inputs, none to the topics', () => {
    expect(scopeInputCount('churn')).toBe(8);
    expect(scopeInputCount('refund')).toBe(4);
    expect(scopeInputCount('billing')).toBe(0);
    expect(scopeInputs('billing', scopeCounts('refund please'))).toEqual([]);
  });

  it('reads a decision against, a setting-aside predicate and an ended recommendation as denials', () => {
    expect(deniedOnly('upgrade', scopeCounts('We decided against moving to the Business tier'))).toBe(true);
    expect(deniedOnly('upgrade', scopeCounts("Upgrading isn't on our roadmap this year"))).toBe(true);
    expect(deniedOnly('upgrade', scopeCounts('Extra seats are off the table until spring'))).toBe(true);
    expect(deniedOnly('refund', scopeCounts("A refund won't be necessary, it's sorted"))).toBe(true);
    expect(deniedOnly('churn', scopeCounts('Leaving was never on the table'))).toBe(true);
    expect(deniedOnly('recommend', scopeCounts('Hard to recommend the tool at the moment'))).toBe(true);
    expect(deniedOnly('recommend', scopeCounts('I used to recommend you to everyone, not anymore'))).toBe(true);
    expect(deniedOnly('recommend', scopeCounts('We stopped recommending it to our clients'))).toBe(true);
  });

  it('reads a budget, a need denied, "more than enough", "stop sending" and a question answered by a pass or a never as denials', () => {
    expect(deniedOnly('upgrade', scopeCounts("Upgrading isn't in the budget this year, we'll revisit later"))).toBe(
      true,
    );
    expect(deniedOnly('upgrade', scopeCounts("An upgrade isn't something we need right now"))).toBe(true);
    expect(deniedOnly('upgrade', scopeCounts('Our current tier is more than enough for what we do'))).toBe(true);
    expect(deniedOnly('upgrade', scopeCounts('Please stop sending me upgrade offers'))).toBe(true);
    expect(deniedOnly('upgrade', scopeCounts("Premium seats? We'll pass, thanks."))).toBe(true);
    expect(deniedOnly('churn', scopeCounts('Cancel? Never. We use it every day.'))).toBe(true);
    expect(deniedOnly('upgrade', scopeCounts('Downgrading? No. Upgrading? Also no.'))).toBe(true);
    expect(deniedOnly('refund', scopeCounts('Getting my money back was never the goal'))).toBe(true);
    expect(deniedOnly('churn', scopeCounts('We have zero intention of leaving'))).toBe(true);
    expect(deniedOnly('churn', scopeCounts("We aren't looking at alternatives"))).toBe(true);
    expect(scopeCounts("We're looking at alternatives").churn).toEqual([1, 0]);
    // The vendor's offer named is no intention said.
    expect(scopeCounts('Thanks for the upgrade offer').upgrade).toEqual([0, 0]);
    expect(scopeCounts('We want to upgrade').upgrade).toEqual([1, 0]);
    // Not an answer: the question still asks.
    expect(deniedOnly('churn', scopeCounts("Why can't I cancel? Never got a reply from you."))).toBe(false);
    expect(deniedOnly('upgrade', scopeCounts('We need the upgrade, the budget is approved'))).toBe(false);
  });

  it('reads staying where one is, a declined offer and a plan that makes no sense as denied upgrades', () => {
    expect(deniedOnly('upgrade', scopeCounts("We'll stay on the Basic plan and keep our three seats"))).toBe(true);
    expect(deniedOnly('upgrade', scopeCounts('The client turned down the upsell to the Gold package'))).toBe(true);
    expect(deniedOnly('upgrade', scopeCounts("Adding more licences doesn't make sense at our size"))).toBe(true);
    expect(deniedOnly('upgrade', scopeCounts('Sticking with two licenses for now'))).toBe(true);
    expect(deniedOnly('upgrade', scopeCounts('Bigger tier? Nope, not this year.'))).toBe(true);
    expect(deniedOnly('upgrade', scopeCounts("We're skipping the upgrade this round"))).toBe(true);
    expect(deniedOnly('churn', scopeCounts("Why can't I cancel? No one answers my emails"))).toBe(false);
    // Said, they stay said: the same words without the denial.
    expect(scopeCounts('We want to expand to 40 seats').upgrade).toEqual([2, 0]);
    expect(deniedOnly('upgrade', scopeCounts('Please add five more licences to our account'))).toBe(false);
    // Staying words deny only what follows them: leaving after staying is still leaving.
    expect(deniedOnly('churn', scopeCounts("We stayed with you for years, now we're cancelling"))).toBe(false);
  });

  it('keeps those denials to their own words', () => {
    // "stopped using it" is leaving; the comma ends a decision against; a predicate reaches back to a comma.
    expect(scopeCounts('Stopped using it, we cancel next week').churn).toEqual([1, 0]);
    expect(deniedOnly('churn', scopeCounts('We decided against the annual plan, so we will cancel in May'))).toBe(
      false,
    );
    expect(scopeCounts("We will upgrade to Pro, cancelling isn't on the table").upgrade).toEqual([1, 0]);
    expect(deniedOnly('upgrade', scopeCounts('Is upgrading on the table for nonprofits?'))).toBe(false);
    // "hard to" denies only a recommendation: this customer wants to cancel.
    expect(deniedOnly('churn', scopeCounts("It's impossible to cancel, the button is hidden"))).toBe(false);
  });
  it.each([
    "From now on I'm using ReelHouse instead of Starlight Cinemas.",
    'We are moving to TaskNest next month.',
    'after eight years with Harbour Hotels im out. found a better deal at Stayzy',
    "that's it, im done with Olive & Thyme. switching to The Green Fork tomorrow",
  ])('after dev14 says leaving: %s', (text) => expect(saysLeaving(text)).toBe(true));

  it.each([
    'We are moving to the new plan next month.',
    "I'm using Chrome instead of the app.",
    "If prices rise we're moving to Acme.",
    "I'm out of coffee, send more.",
  ])('after dev14 does not say leaving: %s', (text) => expect(saysLeaving(text)).toBe(false));

  it.each([
    'We will move to Quillstack when the contract ends.',
    "Good morning, what's the user limit on the Enterprise plan? We won't be renewing. Regards, Tom",
    'We are not renewing our contract.',
  ])('says leaving at the end of a term, or by a renewal refused: %s', (text) => expect(saysLeaving(text)).toBe(true));

  it.each([
    "I never said we won't renew.",
    "If the price goes up we won't be renewing.",
    'I will switch to the Pro plan.',
    "I'm switching to the Business tier.",
  ])('does not say leaving: %s', (text) => expect(saysLeaving(text)).toBe(false));

  it.each([
    "I've decided to renew my gym membership.",
    "We're sticking with you for another year.",
    'Just renewed our plan, see you next year!',
  ])('says staying (dev14): %s', (text) => expect(saysStaying(text, scopeCounts(text))).toBe(true));

  it.each([
    "We won't renew our contract.",
    'We will renew only if the price comes down.',
    "We'd renew, but we're switching to another bank anyway.",
    'Should we renew or cancel?',
  ])('does not say staying: %s', (text) => expect(saysStaying(text, scopeCounts(text))).toBe(false));
  it.each([
    "Thanks for the upgrade offer, but we'll remain on our current plan.",
    'The sales rep keeps emailing about Enterprise, we are not interested in upgrading.',
    "I'm happy on the monthly plan and don't intend to move up to annual Pro.",
    "Our headcount isn't growing, so we won't be buying any extra project tracker seats.",
    'Not upgrading. The Enterprise tier has nothing I need.',
  ])('takes upgrade away when it is declined or only its tiers are said (dev2, dev4, dev7, dev8): %s', (text) =>
    expect(deniedOnly('upgrade', scopeCounts(text))).toBe(true),
  );

  it.each([
    "We want to upgrade to Enterprise, we don't need more storage though.",
    "We need more seats and the Enterprise tier, but we don't need more storage.",
    "If we don't need more seats next year we'll downgrade.",
    'I want to upgrade but not to the Enterprise tier.',
  ])('keeps upgrade when it is said beside what is declined: %s', (text) =>
    expect(deniedOnly('upgrade', scopeCounts(text))).toBe(false),
  );
  it.each([
    ['upgrade', 'I refuse to upgrade to the Max plan.'],
    ['upgrade', 'A move up to the Platinum business tier is not something we will consider.'],
    ['upgrade', 'Upgrade to Premium? What for, a badge? Hard pass.'],
    ['refund', "I'd rather keep the store credit than take a refund."],
  ])('the veto reads more forms of denial (dev16): %s %s', (label, text) => {
    expect(deniedOnly(label, scopeCounts(text, { wide: true }))).toBe(true);
    // The heads' inputs stay as trained: without `wide` the words are said.
    expect(deniedOnly(label, scopeCounts(text))).toBe(false);
  });

  it.each([
    "There's no reason not to upgrade to the Pro plan.",
    "I never thought I'd upgrade, but the Team plan is worth it.",
    'Upgrade to Premium? Yes please, sign me up.',
    'I would rather upgrade than keep paying for add-ons one by one.',
  ])('the wider veto keeps an upgrade said: %s', (text) =>
    expect(deniedOnly('upgrade', scopeCounts(text, { wide: true }))).toBe(false),
  );
  it.each([
    ['churn', "My brother reckons I'm going to switch to another bank. Nope, not leaving."],
    ['churn', 'The rumours that we are cancelling are false.'],
    ['churn', "Our rep asked if we're planning to move to a rival. We're not - we're renewing."],
    ['churn', 'Cancelling has never crossed my mind.'],
    ['churn', 'I have no intention of cancelling. Please remove the cancellation flag from my file.'],
    ['churn', 'Leaving is not something our team is considering.'],
    ['refund', "You don't have to give me my money back."],
    ['refund', 'Your agent offered me a refund, but I declined.'],
    ['refund', "I was going to ask for a refund, but it's fine now."],
    ['refund', "I'd rather keep the £9.99 credit than take a refund."],
  ])('the veto reads more forms of denial (dev19): %s %s', (label, text) =>
    expect(deniedOnly(label, scopeCounts(text, { wide: true }))).toBe(true),
  );

  it.each([
    ['churn', 'My boss thinks we should switch to a rival.'],
    ['churn', "I'm considering cancelling."],
    ['refund', 'I was going to wait, but now I want a refund.'],
    ['refund', 'They offered a voucher but I want a full refund instead.'],
    // From the review: a vendor's refusal, a wait, an offer not declined, a claim of one's own.
    ['refund', 'They refused to refund me.'],
    ['refund', "I've been waiting nearly a month for my refund."],
    ['refund', 'They offered a refund but it never arrived.'],
    ['churn', "Two of my claims were rejected and I'm not happy, I'm cancelling my policy."],
  ])('the wider veto keeps what is said (dev19): %s %s', (label, text) =>
    expect(deniedOnly(label, scopeCounts(text, { wide: true }))).toBe(false),
  );

  it.each([
    "I won't be staying with Brightnet.",
    'The whole team is moving to Skyrail from next month.',
    "I'm giving up my gym membership.",
    "I never thought I'd leave, but I'm ending my contract tomorrow.",
    "We're not putting up with the slowdowns any longer - the whole team is moving to Skyrail from next month.",
    'Ticket: customer requests account closure and data deletion.',
  ])('says leaving (dev19): %s', (text) => expect(saysLeaving(text)).toBe(true));

  it.each([
    "I won't be staying on hold again.",
    'The whole team is moving to the new office.',
    "We're not moving to Skyrail, whatever the sales rep says.",
  ])('does not say leaving: %s', (text) => expect(saysLeaving(text)).toBe(false));

  it.each([
    'We looked at other networks, but after comparing we decided to stay.',
    "Good news: the board signed off, so we're staying for another year.",
    'My family is renewing it.',
  ])('says staying (dev19): %s', (text) => expect(saysStaying(text, scopeCounts(text, { wide: true }))).toBe(true));

  it('does not say staying under a condition', () =>
    expect(saysStaying("We'll stay if they fix it.", scopeCounts("We'll stay if they fix it.", { wide: true }))).toBe(
      false,
    ));
});

describe('statements of leaving from the read sets dev20 and dev21', () => {
  it.each([
    'I cancelled my Harbour Home insurance policy yesterday.',
    'Ended my furniture rental plan this morning.',
    'Please close my Gas & Power Direct account.',
    'My dad has asked me to close his contract with you.',
    'As of today I am no longer a Brightline Hotels customer.',
    'Left Harbour Bank in March, best decision all year.',
    "Used to love the gym but I've finally left.",
    'mate I left in April, stop emailing me',
    "We're switching everything from Acme Energy to Volt Power next month.",
    'My wife and I are switching to Streamly.',
    'We moved our whole household over to Fernway Pharmacy.',
    'Moved every penny out of Old Town Bank today.',
    'I want out of my gym contract.',
    'Please remove me as a Fernway customer.',
    'PAC code in hand, my number gets ported to Nexa tomorrow.',
    "I'll be letting the newspaper subscription lapse.",
    'Done with you, Acme.',
    "I've decided to leave Riverside Dental for good.",
    "Just hit 'close account' and it felt great.",
    'unsubscribed from Drivora and never looking back',
    'bye @user, switched to @user and already saving',
    "me: I want to leave. them: can I offer you a discount? me: no thanks, I've already signed with Volt Power.",
  ])('says leaving: %s', (text) => expect(saysLeaving(text)).toBe(true));

  it.each([
    'They closed my account without any warning.',
    'I left a review last week.',
    'I decided to leave a review for the driver.',
    "I'm done with you guys for today, thanks for the help!",
    'I left the charger at the hotel, could you post it?',
    'We are no longer having any problems with the app.',
    // Found on the corpus: a deal's stage, a relative clause, a billing dispute after a cancellation.
    'The deal moved from Proposal to Won overnight.',
    'Wickedly fast compared to the tool we left.',
    'I cancelled my subscription in May and was charged again in June.',
  ])('does not say leaving: %s', (text) => expect(saysLeaving(text)).toBe(false));
});

describe('denied intentions from the read set dev22 (2026-12-04)', () => {
  it.each([
    ['upgrade', 'Declined the offer to move up to the premium tasting menu at the bistro.'],
    ['upgrade', 'Turned down the invitation to step up to the Gold membership.'],
    ['upgrade', 'I no longer want the Plus tariff, please drop the upgrade request.'],
    ['recommend', "I'd struggle to recommend it to anyone who needs things to just work."],
  ])('hears %s only denied: %s', (label, text) => {
    expect(deniedOnly(label, scopeCounts(text))).toBe(true);
  });
  it('hears leaving weighed in one sentence and staying decided in another as no churn', () => {
    expect(
      deniedOnly(
        'churn',
        scopeCounts(
          "The dropped calls had me looking at other providers for a bit. In the end the others weren't any cheaper, so I'm staying with them.",
        ),
      ),
    ).toBe(true);
    expect(
      deniedOnly(
        'churn',
        scopeCounts(
          "I rang last week saying I might cancel. After the fix I've changed my mind, so please don't process it.",
        ),
      ),
    ).toBe(true);
  });
  it.each([
    ['upgrade', 'They offered me the chance to move up to the premium tier and I took it.'],
    ['churn', 'I looked at other providers for a while. I am cancelling today.'],
  ])('still hears %s said: %s', (label, text) => {
    expect(deniedOnly(label, scopeCounts(text))).toBe(false);
  });
});

describe('statements of leaving from the read set dev23 (2026-12-04)', () => {
  // Reworded from the read set's forms, so that the rules are tested on more than the lines they came from.
  it.each([
    'This will be my last stay with Harbour Suites. We are booking elsewhere next year.',
    'Consider this our last order, we have found another supplier.',
    'Final shop from Greenbasket, ever.',
    'Port-out request raised today, please release the number.',
    'Porting out next week, Tidemobile.',
    "We're porting to another network the day the contract ends.",
    'Changing banks after this.',
    'Please stop our veg box deliveries for good.',
    'Time to find another dentist.',
    "Won't be back at Rosso's, the pasta was raw twice.",
    "I'm not coming back to Ironclad Gym after the way I was spoken to.",
    'never ordering from that bakery again',
    "Brightwheel Garage won't be seeing my van again.",
    'No more Clipper Taxis for us.',
    'Quitting Pulse Fitness at the end of the month.',
    'From now on we are flying Northjet.',
    'Adios, Kestrel Bank.',
    'We have opted not to extend our lease with Parkview Lettings.',
  ])('says leaving: %s', (text) => expect(saysLeaving(text)).toBe(true));

  it.each([
    // The most recent one, not the last: a complaint about an order.
    'My last order from Kettle & Co arrived two days late.',
    'This is my last question for today, thanks for your patience.',
    'This is our last night at the Seabreeze and what a stay it has been.',
    "I won't be back until Monday, can someone else pick up the ticket?",
    "The blue jumper won't be back in stock until March.",
    "I'm not going back to the old version, the new editor is great.",
    'No more lag for me since the update, thank you!',
    'Please stop my deliveries for two weeks while I am away.',
    'I changed banks details last week, please update my direct debit.',
    'Thinking about switching banks if this keeps happening.',
    "I'm not switching banks over one mistake.",
    'Ciao! Quick question about my invoice.',
    'From now on I am using the app for all bookings, so much easier.',
    "I've decided not to extend my holiday, so please cancel the extra night.",
    // Never going back to the provider left for this one.
    'Moved over from Skyline Broadband in June: 900 down, never going back.',
  ])('does not say leaving: %s', (text) => expect(saysLeaving(text)).toBe(false));

  it('reads "never going back" in a message read positive as praise of the switch', () => {
    const text = 'new router from @user is flying, 500 down. never going back';
    expect(saysLeaving(text, true)).toBe(false);
    expect(saysLeaving(text)).toBe(true);
  });
});

describe('denied intentions and staying from the read set dev25 (2026-12-04)', () => {
  // Reworded from the read set's forms; the veto reads them (wide), the heads' inputs do not change.
  it.each([
    ['upgrade', 'Deferring the upgrade to the Team plan until further notice.'],
    ['upgrade', 'Survey answer: upgrading is not on our radar.'],
    ['upgrade', "That's a no from us on the premium cabin upgrade."],
    ['upgrade', 'Please stop offering me the express delivery upgrade at checkout.'],
    ['refund', 'Forget the refund, just send the right size.'],
    ['refund', "I'll decline the refund and wait for the next delivery."],
    ['refund', "We'd prefer a replacement over a refund for the kettle."],
    ['churn', 'I closed my savings account by mistake, please reopen it.'],
    ['churn', 'The cancellation letter we posted was meant for another supplier.'],
  ])('hears %s only denied: %s', (label, text) => {
    expect(deniedOnly(label, scopeCounts(text, { wide: true }))).toBe(true);
  });
  it('hears "not me" after a question about leaving as its answer', () => {
    expect(
      deniedOnly('churn', scopeCounts('Thinking of cancelling? Not me, the app is part of my day.', { wide: true })),
    ).toBe(true);
  });
  it.each([
    'Renewing our home policy with you again this year.',
    "My lease ends in June and I'll renew.",
    "We've decided to remain with Harbour Mutual for the car cover.",
  ])('hears staying said: %s', (text) => {
    expect(saysStaying(text, scopeCounts(text, { wide: true }))).toBe(true);
  });
  it.each([
    ['refund', 'Postponing my holiday, so I need a refund for the deposit.'],
    ['upgrade', 'I declined at first, but now I want the upgrade to Pro.'],
    ['refund', 'Please issue a refund, the order was sent to the wrong address by mistake.'],
  ])('still hears %s said: %s', (label, text) => {
    expect(deniedOnly(label, scopeCounts(text, { wide: true }))).toBe(false);
  });
});

describe('statements of leaving from the read set dev26 (2026-12-04)', () => {
  // Reworded from the read set's forms (leaving told by what was done, not by "cancel" or "switch").
  it.each([
    'Closed the joint account last night, the savings are going to the building society.',
    'We have transferred both domains and the mail boxes to a new registrar.',
    'Moving all our payroll to a new provider from April.',
    'Took my pension to another firm, the fees were too high.',
    'I moved my car insurance to another insurer when the fixed term ended.',
    'Signed up with a competitor this morning.',
    "I've gone for the other broadband company's offer.",
    'The committee decided to go with another caterer next season.',
    'I will take my money elsewhere.',
    'Asked for the deletion of my shopper account.',
    'Uninstalled the app and that is that.',
    'deleted my account, enough',
    'Booked my final lesson with the driving school.',
    'Next Tuesday is my last session.',
    'Final meter readings are in the photo.',
    'Please take this email as our formal notice.',
    'Our notice has been handed in.',
    "We're letting the membership run out in June.",
    'We now buy our coffee at the kiosk by the station instead.',
    "Won't be ordering from you again.",
    'Not re-enrolling the twins next year.',
    'Requested the MAC code today.',
    'Membership cancelled on my side, thanks for the years.',
    'Booked the family holiday with a different travel agent this year.',
  ])('says leaving: %s', (text) => expect(saysLeaving(text)).toBe(true));

  it.each([
    'I tried deleting the app, it still crashes.',
    'Deleted the app and reinstalled it, same error.',
    'Support told me to delete the app first.',
    // "Last" as the most recent one.
    'I had my last session on Monday and the trainer was great.',
    'My last box arrived with a broken egg.',
    'Deleted my profile photo by mistake, can I get it back?',
    'I let my card expire and the payment failed.',
    'We will go with a different colour for the banner.',
    'Moved the meeting to Thursday.',
    'Please take this as feedback, not a complaint.',
    'The final reading of the report is on Friday.',
  ])('does not say leaving: %s', (text) => expect(saysLeaving(text)).toBe(false));

  it.each([
    'Please extend my contract for another year.',
    "You matched the price, so we'll carry on with you.",
    'Please keep my account open, the issue is sorted.',
  ])('hears staying said: %s', (text) => {
    expect(saysStaying(text, scopeCounts(text, { wide: true }))).toBe(true);
  });

  // From the read set dev28, in sentences of this test's own.
  const wide = (text: string) => scopeCounts(text, { wide: true });
  it.each([
    "Cancel tomorrow's 7pm yoga session please, I'll rebook for Friday.",
    'Can you cancel the flight to Oslo? I will rebook through you for May.',
    'Cancelling our hotel room for the 3rd, keeping the rest of the stay.',
  ])('hears a booking cancelled, not the service: %s', (text) =>
    expect(cancelsOnlyThings(text, wide(text))).toBe(true),
  );
  it.each([
    'Cancel my gym membership from next month.',
    'Please cancel my account and the pending order.',
    'Cancelling the yoga session and the whole subscription, we are moving abroad.',
    "I'll cancel the flights and fly with another airline from now on.",
    'Cancel my delivery pass, see you around.',
  ])('still hears the service cancelled: %s', (text) => expect(cancelsOnlyThings(text, wide(text))).toBe(false));
  it.each([
    'Our renewal is confirmed for two more years.',
    "Rest assured we're remaining customers, the contract question was just for the file.",
  ])('hears staying confirmed: %s', (text) => expect(saysStaying(text, wide(text))).toBe(true));
  it.each([
    "There's a thread going round claiming we've dropped your app. Not true, we're still customers.",
    'Rumours we are switching to another bank are wrong.',
  ])('hears a claim of leaving contradicted: %s', (text) => expect(deniedOnly('churn', wide(text))).toBe(true));
});

describe('an upgrade decided against, vetoed or put off (my own templates, 2026-12-05)', () => {
  it.each([
    "After a lot of thought, we've decided against moving to the Pro plan.",
    'We opted not to switch to the business tier this year.',
    'My husband vetoed the upgrade to the family bundle.',
    "We'll think about the premium tier next year, not now.",
  ])('vetoes the upgrade: %s', (text) => expect(deniedOnly('upgrade', scopeCounts(text, { wide: true }))).toBe(true));
  it.each([
    'We voted to move up to the enterprise licence.',
    "I'll think about which colour I want, but I'm upgrading to the premium tier today.",
    'We decided against the cheaper plan and went for the premium tier.',
  ])('leaves an upgrade said alone: %s', (text) =>
    expect(deniedOnly('upgrade', scopeCounts(text, { wide: true }))).toBe(false),
  );
});

describe('an upgrade kept from, made conditional, waited on or declined by pronoun (the read set dev29, my own words)', () => {
  it.each([
    "We were going to switch to the unlimited plan, but we'll keep our 50GB plan.",
    "I'd only upgrade to the premium tier if you matched the other offer.",
    'My sister wanted me to get the bigger bundle, but I told her 20GB is plenty for me.',
    'We looked at the Enterprise tier last month and decided against it for now.',
    "I'm going to wait until the price drops before I move to the higher tier.",
    "I clicked 'upgrade to Pro' but backed out before paying.",
  ])('vetoes the upgrade: %s', (text) => expect(deniedOnly('upgrade', scopeCounts(text, { wide: true }))).toBe(true));
  it.each([
    "I'll upgrade to the premium tier if you can switch it on today, and I'm keeping my old phone.",
    'We upgraded to the Enterprise tier and the team loves it.',
  ])('leaves an upgrade said alone: %s', (text) =>
    expect(deniedOnly('upgrade', scopeCounts(text, { wide: true }))).toBe(false),
  );
});

describe('an upgrade set aside in the read set dev30 shapes (my own words, 2026-12-05)', () => {
  it.each([
    "We were all set to go for the bigger bundle, but we're leaving it for now.",
    "If the premium tier came with more storage I might consider it, but for now I'm not upgrading.",
    "I'm withdrawing my request to move up to the family plan.",
    "We're saving for a car, so the upgrade can wait.",
    "I had an upgrade to the Gold plan booked, but I've cancelled it.",
  ])('vetoes the upgrade: %s', (text) => expect(deniedOnly('upgrade', scopeCounts(text, { wide: true }))).toBe(true));
  it('leaves "can\'t wait to upgrade" alone', () =>
    expect(deniedOnly('upgrade', scopeCounts("I can't wait to upgrade to the premium tier!", { wide: true }))).toBe(
      false,
    ));
});

describe('an upgrade or a leaving set aside in more words (the read sets dev8, dev19, dev25 and dev28, my own words)', () => {
  it.each([
    'Please note we will not be buying the family bundle or any other upgrade.',
    'I have no intention of joining the Platinum tier of your rewards scheme.',
    'My husband asked if we should get the premium bundle — we agreed no.',
    'Is there any point upgrading to the fibre plan if I only check email?',
  ])('vetoes the upgrade: %s', (text) => expect(deniedOnly('upgrade', scopeCounts(text, { wide: true }))).toBe(true));
  it('leaves a question asked to upgrade alone', () =>
    expect(
      deniedOnly(
        'upgrade',
        scopeCounts('Is there any point waiting? I want to upgrade to the Pro plan.', { wide: true }),
      ),
    ).toBe(false));
  it("hears no leaving that has never crossed the writer's mind", () => {
    expect(saysLeaving('Cancelling my subscription has never crossed my mind.')).toBe(false);
    expect(saysLeaving('I am cancelling my subscription today.')).toBe(true);
  });
});

describe('an upgrade judged pointless (my own templates, 2026-12-05)', () => {
  it.each([
    'My current plan does everything, so an upgrade makes no sense.',
    'For a team of two the enterprise tier would be overkill.',
  ])('vetoes the upgrade: %s', (text) => expect(deniedOnly('upgrade', scopeCounts(text, { wide: true }))).toBe(true));
  it('leaves an upgrade that makes sense alone', () =>
    expect(
      deniedOnly('upgrade', scopeCounts('Upgrading to the premium tier makes sense for us now.', { wide: true })),
    ).toBe(false));
});

describe('an upgrade refused "even if", undone or weighed twice (my own templates, 2026-12-05)', () => {
  it.each([
    "I wouldn't upgrade even if it were half price.",
    'Undo the upgrade to premium, I clicked it by accident.',
    "I'll think twice before upgrading to the new tier.",
  ])('vetoes the upgrade: %s', (text) => expect(deniedOnly('upgrade', scopeCounts(text, { wide: true }))).toBe(true));
  it('still reads a condition as a condition: "if the price doesn\'t come down we\'ll switch" is leaving', () =>
    expect(
      deniedOnly('churn', scopeCounts("If the price doesn't come down we'll switch providers.", { wide: true })),
    ).toBe(false));
});
