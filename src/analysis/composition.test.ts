import { describe, expect, it } from 'vitest';
import { compositionVerdict } from './composition.js';
import { contrastParts, expectationDenied } from './composition/contrast.js';
import { helpWithProblem, openProblem, politeComplaint } from './composition/courtesy.js';
import { deniedComplaint, deniedPraise } from './composition/denials.js';
import { core } from './composition/envelope.js';
import { lean } from './composition/reading.js';
import { resolvedStory } from './composition/story.js';
import { countsDiffer, MISMATCH, mismatch, plainFailure } from './composition/failures.js';
import { clearPraise, plainPraise, praiseIdiom } from './composition/praise.js';
import { sarcasm } from './composition/sarcasm.js';
import { composePolarity } from './heads.js';

describe('core: the message without its envelope', () => {
  it.each([
    ['Hi Sam, the export is slow again. — Priya', 'the export is slow again.'],
    ['Good afternoon, the board is lovely', 'the board is lovely'],
    ['Re: invoice 2291 — we were billed twice', 'we were billed twice'],
    ['Subject: sync broken again', 'sync broken again'],
    ['Thanks for the quick fix', 'Thanks for the quick fix'],
  ])('%s', (text, want) => expect(core(text)).toBe(want));
});

describe('contrast', () => {
  it('splits on the last marker, or after a fronted concession', () => {
    expect(contrastParts('The editor is lovely, but the search is useless')).toEqual([
      'The editor is lovely, ',
      ' the search is useless',
    ]);
    expect(contrastParts('Though the reports are handy, the mobile app crashes daily')).toEqual([
      ' the reports are handy',
      'the mobile app crashes daily',
    ]);
    expect(contrastParts('In the beginning it was fine, now it freezes every hour')?.[1]).toBe(
      ' it freezes every hour',
    );
  });

  it('is not a contrast: "not only … but", "nothing but", a long message, a one-word tail', () => {
    expect(contrastParts('Not only fast but also cheap to run')).toBeUndefined();
    expect(contrastParts('We had nothing but trouble')).toBeUndefined();
    expect(contrastParts('Love it, but meh')).toBeUndefined();
    const long = `${'We use the planner every day and the whole office relies on it. '.repeat(3)}But the sync is broken.`;
    expect(contrastParts(long)).toBeUndefined();
  });

  it('judges a short contrast by its later part when the two parts disagree', () => {
    expect(compositionVerdict('The invoices look great, but the payroll run is a disaster')).toEqual({
      sign: -1,
      rule: 'contrast',
    });
    expect(compositionVerdict('The import was frustrating at first, but now it works perfectly')).toEqual({
      sign: 1,
      rule: 'contrast',
    });
    // Both parts lean the same way: nothing to turn round.
    expect(compositionVerdict('The app is terrible, but the support is awful too')).toBeUndefined();
    // A later part that leans nowhere: a question or a wish.
    expect(compositionVerdict('Great tool, but could you add a dark theme?')).toBeUndefined();
  });

  it('heads v21: "at first … then", "since then", bad news and the trades\' complaints', () => {
    expect(contrastParts('At first the kitchen was quick, then the orders got stuck')?.[1]).toBe(
      ' the orders got stuck',
    );
    expect(contrastParts('Great gym for a year. Since then: broken showers and no staff')?.[1]).toBe(
      ': broken showers and no staff',
    );
    // "Unfortunately" says the later part is bad news, whatever its words.
    expect(compositionVerdict('Thanks for the fast reply! Unfortunately the new version opens empty files')).toEqual({
      sign: -1,
      rule: 'contrast',
    });
    // A later part that only signs off politely leans nowhere.
    expect(compositionVerdict('No hurry at all, but the parcel still shows "in transit", ty')).toBeUndefined();
    expect(compositionVerdict('The waiter was charming, but the pasta came soggy and stale')).toEqual({
      sign: -1,
      rule: 'contrast',
    });
  });
});

describe('after the dev5 read set (heads v21)', () => {
  it('reads a closing "though", "turns out" and a later part that only tells a failure', () => {
    expect(contrastParts('The lobby is gorgeous; the lifts are always out of order though.')?.[1]).toBe(
      'the lifts are always out of order',
    );
    expect(compositionVerdict('The kitchen staff were friendly. The soup was cold though.')).toEqual({
      sign: -1,
      rule: 'contrast',
    });
    expect(compositionVerdict('I dreaded the new billing system, turns out it is brilliant')).toEqual({
      sign: 1,
      rule: 'contrast',
    });
    expect(compositionVerdict('Lovely staff but the van had a flat tyre when we picked it up')).toEqual({
      sign: -1,
      rule: 'contrast',
    });
    expect(compositionVerdict('The plan seemed great, but my phone bills have tripled')).toEqual({
      sign: -1,
      rule: 'contrast',
    });
  });

  it('weighs two clauses side by side by the later one, only when both lean and no conjunction joins them', () => {
    expect(compositionVerdict('Gorgeous screen, cracked hinge out of the box.')).toEqual({
      sign: -1,
      rule: 'contrast',
    });
    expect(compositionVerdict('Awful first week, wonderful ever since')).toEqual({ sign: 1, rule: 'contrast' });
    // Two sentences, or a list: not two sides of one judgement.
    expect(compositionVerdict('It is wrong. Creative, though, and fun')).not.toEqual({ sign: 1, rule: 'contrast' });
    expect(compositionVerdict('Great food, and great staff')?.rule).toBe('clear praise');
  });

  it('reads sarcasm: a doubled praise word, "everything except the one", a favourite hobby, "would love … again"', () => {
    expect(sarcasm('Perfect, just perfect. The train is cancelled and nobody knows why.')).toBe(-1);
    expect(sarcasm('The warranty covers everything except the one part that always breaks.')).toBe(-1);
    expect(sarcasm('My favourite pastime is rebooting the modem every evening')).toBe(-1);
    expect(sarcasm('Would love to sit through another outage again next week')).toBe(-1);
    expect(sarcasm('Huge thanks for the surprise downtime on payday')).toBe(-1);
    // Said and meant: a hobby without a failure, a wish to come back.
    expect(sarcasm('My favourite hobby is cooking and this pan is superb')).toBe(0);
    expect(sarcasm('Would love to stay here again next summer')).toBe(0);
  });

  it('hears a "never" that compares, not one that denies', () => {
    expect(compositionVerdict('Never been so furious with an airline!!')).toEqual({ sign: -1, rule: 'emphatic never' });
    expect(compositionVerdict('I have never had such a delightful stay')).toEqual({ sign: 1, rule: 'emphatic never' });
    expect(deniedComplaint('The app has never crashed on me')).toBe(1);
  });

  it('knows idioms of praise the lexicons misread, unless something failed', () => {
    expect(compositionVerdict('Nothing compares to their fresh pasta')).toEqual({ sign: 1, rule: 'praise idiom' });
    expect(compositionVerdict('The nurse went above and beyond for my mum')).toEqual({ sign: 1, rule: 'praise idiom' });
    expect(compositionVerdict('Our courier is an absolute legend')).toEqual({ sign: 1, rule: 'praise idiom' });
    expect(compositionVerdict('Absolute legend of a courier, lost my parcel twice')?.rule).not.toBe('praise idiom');
  });

  it('hears damage, anger and faults of things as complaints', () => {
    expect(plainFailure('The blinds arrived with a torn cord')).toBe(-1);
    expect(plainFailure('My new monitor has the same dead pixel issue as the last one')).toBe(-1);
    expect(deniedComplaint('Not one dent on the fridge after the move')).toBe(1);
    expect(compositionVerdict('hotel breakfast is garbage tbh')?.sign ?? -1).toBe(-1);
  });
});

describe("after templates in the manner of CheckList's own (heads v21)", () => {
  it('reads an expectation and its denial as the opposite of what was expected', () => {
    const v = (t: string) => compositionVerdict(t)?.sign;
    expect(v('We expected the migration to be a nightmare, and it was not.')).toBe(1);
    expect(v('I was worried the courier would lose the parcel. He did not.')).toBe(1);
    expect(v("The new plan was supposed to be cheaper, but it isn't.")).toBe(-1);
    expect(v("I hoped the hotel would be quiet, it wasn't at all.")).toBe(-1);
    // The denial must end the message, and a denied expectation is a double turn left to the readers.
    expect(compositionVerdict("I thought the upgrade would be slow, but it wasn't, it was broken")?.rule).not.toBe(
      'expectation denied',
    );
    expect(compositionVerdict("I thought it wouldn't work, but it didn't")?.rule).not.toBe('expectation denied');
  });

  it('hears a complaint denied behind "can\'t say", "don\'t think" and "would never say"', () => {
    expect(deniedComplaint("Honestly I can't say the staff were rude.")).toBe(1);
    expect(deniedComplaint("I don't think the new checkout is buggy.")).toBe(1);
    expect(deniedComplaint('I would never call the lessons boring.')).toBe(1);
    // "can't stand" says the complaint; "can't log in" denies nothing.
    expect(deniedComplaint("I can't stand how sloppy the new layout is.")).toBe(0);
    expect(deniedComplaint("I can't log in since Monday.")).toBe(0);
  });

  it('turns a contrast at its last marker with a later part: "at first, but … now"', () => {
    expect(compositionVerdict('The gym was great at first, but the showers are filthy now.')).toEqual({
      sign: -1,
      rule: 'contrast',
    });
  });

  it('reads praise taken back by a closing "not", and thanks for something that never works', () => {
    expect(sarcasm('Sure, the new timetable is really convenient... not.')).toBe(-1);
    expect(sarcasm('Thanks so much for the tracking page that never loads.')).toBe(-1);
    expect(sarcasm('The new timetable is really convenient.')).toBe(0);
  });
});

describe('after the template-made read set dev6 (heads v21)', () => {
  it('hears more failures after a praise opening or before a praise closing', () => {
    expect(sarcasm('Oh lovely, my payment bounced again.')).toBe(-1);
    expect(sarcasm('Great work, the courier forgot my parcel.')).toBe(-1);
    expect(sarcasm('My order got cancelled twice this week. Superb service as usual.')).toBe(-1);
    expect(sarcasm('Wonderful, I was billed twice for one lesson.')).toBe(-1);
    expect(sarcasm('Perfect, our premiums have gone up again.')).toBe(-1);
    // A sincere closing after something good stays praise.
    expect(sarcasm('The engineer came early and fixed it. Superb service as usual.')).toBe(0);
  });

  it('reads "nothing says … like" and "never disappoints" before a failure as sarcasm', () => {
    expect(sarcasm('Nothing says luxury like a shower with no hot water.')).toBe(-1);
    expect(sarcasm('Trusty old Metro Rail never disappoints: my train got cancelled yet again.')).toBe(-1);
    expect(sarcasm('Metro Rail never disappoints, always on time.')).toBe(0);
  });

  it('turns at "on the other hand" and lets a closing request for an update lean nowhere', () => {
    expect(compositionVerdict('The gym is clean. The changing rooms, on the other hand, are filthy.')?.sign).toBe(-1);
    expect(
      compositionVerdict(
        'Thanks for the quick reply. However, the heating broke down again, so I would appreciate a call.',
      )?.sign,
    ).toBe(-1);
  });

  it('hears praise that has ended, praise denied after an intensifier, and "steep" as a complaint', () => {
    expect(deniedPraise("I used to love the meal kits, but I don't anymore.")).toBe(-1);
    expect(deniedPraise('The new fares? Certainly not affordable.')).toBe(-1);
    expect(deniedComplaint("To be fair, the fees aren't steep.")).toBe(1);
  });

  it('reads a lost service, a table given away and a failure told calmly as plain failures', () => {
    expect(plainFailure('We have had no hot water in the flat since Tuesday.')).toBe(-1);
    expect(plainFailure('Our booked table was given away to walk-ins.')).toBe(-1);
    // "no signal at all" in a wish is no failure told.
    expect(plainFailure("I'd pay extra for offline mode, the warehouse has no signal at all.")).toBe(0);
  });
});

describe('after the template-made read sets dev7 and dev8 (heads v21)', () => {
  it('reads sarcasm in closers, thanks, "the bit where", "amazing at … without" and "only N times"', () => {
    expect(sarcasm('The parcel was left in the rain again. Delivery at its finest.')).toBe(-1);
    expect(sarcasm('Cheers, the gym cancelled my class with no warning. Really made my Tuesday.')).toBe(-1);
    expect(sarcasm('Thank you so much for deleting my saved playlists.')).toBe(-1);
    expect(sarcasm('Loved the bit where the airline lost my suitcase.')).toBe(-1);
    expect(sarcasm('The help desk is brilliant at marking tickets solved without reading them.')).toBe(-1);
    expect(sarcasm('Great router. It has only dropped the connection nine times today.')).toBe(-1);
    expect(sarcasm('Who even needs a working oven anyway.')).toBe(-1);
    expect(sarcasm('Perfect phone, if you enjoy charging it three times a day.')).toBe(-1);
    // Sincere: a failure mended, thanks for a fix, a count that is praise.
    expect(sarcasm('Thank you so much for fixing the crash so quickly.')).toBe(0);
    expect(sarcasm('Thanks for the quick refund after the double charge.')).toBe(0);
    expect(sarcasm('The new kettle is lovely. Really made my morning.')).toBe(0);
  });

  it('does not take "restaurant", "want" or "sent" for a negator before a failure', () => {
    expect(sarcasm('Kudos to the restaurant for serving us raw chicken.')).toBe(-1);
  });

  it('hears a polite complaint whatever courtesy surrounds it, on both sides of a "but"', () => {
    expect(
      politeComplaint(
        "If it's not too much trouble, could you explain why my bill went up by £12 without notice? I'd really appreciate it.",
      ),
    ).toBe(-1);
    expect(politeComplaint('I have always valued your shop. Regrettably, the courier never turned up.')).toBe(-1);
    expect(
      compositionVerdict(
        "I hate to bother you, but the lift has been out of order for a week. I'd be very grateful for any help.",
      )?.sign,
    ).toBe(-1);
    expect(mismatch('My parcel held a phone case instead of the charger I paid for.')).toBe(-1);
  });

  it('hears complaints denied in a phrase or an answer', () => {
    expect(deniedComplaint('The quote was not higher than the estimate.')).toBe(1);
    expect(deniedComplaint("We didn't have to wait long for the doctor.")).toBe(1);
    expect(deniedComplaint('No hidden charges on the invoice.')).toBe(1);
    expect(deniedComplaint('Any trouble with the installer? No, none at all.')).toBe(1);
    // A question answered with "no worries", or an intention asked about, is no complaint denied.
    expect(deniedComplaint('Has the refund gone out? No worries if not.')).toBe(0);
    expect(compositionVerdict('I feared the return would be a hassle, but there was no hassle at all.')?.sign).toBe(1);
  });
});

describe('after the template-made read set dev9 (heads v21)', () => {
  it('hears a problem reported with a request for help, however warm the envelope', () => {
    expect(
      helpWithProblem(
        "Hello! Huge fan of the gym, but the lockers in the women's room won't lock. Could you check? Thanks!",
      ),
    ).toBe(-1);
    expect(
      helpWithProblem(
        'Good evening, my statement shows a late fee on my card that I never triggered. Any help is appreciated.',
      ),
    ).toBe(-1);
    expect(
      helpWithProblem('Hi team, the booking shows the wrong date. Would it be possible to change it? Many thanks'),
    ).toBe(-1);
    expect(
      compositionVerdict(
        'Love your app! Just wanted to flag that my reminders no longer arrive. Could you have a look? Thanks',
      ),
    ).toEqual({ sign: -1, rule: 'polite complaint' });
    // No problem, a problem mended or denied, or no request: left alone.
    expect(helpWithProblem('Could you add a dark mode to the app? Thanks so much!')).toBe(0);
    expect(helpWithProblem('Thanks for fixing the login issue so quickly, could you also send me the invoice?')).toBe(
      0,
    );
    expect(
      helpWithProblem('Nothing wrong with the product, we just have fewer staff. Could you reduce our seats? Thanks'),
    ).toBe(0);
    expect(helpWithProblem("The lockers won't lock, thanks.")).toBe(0);
  });

  it('reads idioms of irony beside a failure as sarcasm, and leaves them alone beside none', () => {
    expect(sarcasm('My flight got delayed four hours. Exactly how I wanted to spend my Saturday.')).toBe(-1);
    expect(sarcasm('A gym membership charged twice. Never gets old.')).toBe(-1);
    expect(sarcasm('The router drops out every night. Stellar work, as always.')).toBe(-1);
    expect(sarcasm('Five stars for delivering my lamp in pieces.')).toBe(-1);
    expect(sarcasm("Can't thank you enough for billing me for a plan I cancelled.")).toBe(-1);
    expect(sarcasm('Love paying extra for a seat that never showed up on my booking 🙄')).toBe(-1);
    expect(sarcasm('My pension statement has been "pending" for six weeks. What a surprise.')).toBe(-1);
    expect(sarcasm('So much for next-day delivery.')).toBe(-1);
    expect(sarcasm('Who needs hot water in a hotel anyway?')).toBe(-1);
    // Sincere: the same idioms with nothing failed, a failure denied, thanks that are thanks.
    expect(sarcasm('Best purchase ever, it has not crashed once.')).toBe(0);
    expect(sarcasm('Just what I needed: the export now handles big files.')).toBe(0);
    expect(sarcasm('Thank you so much for the quick refund!')).toBe(0);
    expect(sarcasm('Love using the new editor, keep up the great work.')).toBe(0);
  });

  it('does not read closing praise after a turn to praise as sarcasm', () => {
    expect(
      sarcasm(
        'Honestly, my order was a little late. That said, the staff added a free dessert and it was lovely. Love it!',
      ),
    ).toBe(0);
  });
});

describe('after the read sets dev10 (sarcasm) and dev11 (negations) (heads v21)', () => {
  it('reads more of the ways English is sarcastic about a failure', () => {
    expect(sarcasm('Ten out of ten! Love how the courier cancelled my order twice.')).toBe(-1);
    expect(sarcasm('If you love waiting all evening for a pizza that never comes, this app is perfect for you.')).toBe(
      -1,
    );
    expect(sarcasm('What a lovely surprise: a fee on my bill with no explanation.')).toBe(-1);
    expect(sarcasm("Thanks for logging me out in the middle of a payment. It's the little things.")).toBe(-1);
    expect(sarcasm('Their "express" shipping took three weeks to deliver. Impressive stuff.')).toBe(-1);
    expect(sarcasm('Impressive, really. The waiter spilled soup on me and nobody apologised.')).toBe(-1);
    expect(sarcasm('Shoutout to the garage for losing my keys.')).toBe(-1);
    // Sincere: devotion, a failure overcome, a refund thanked for, a quote that praises nothing.
    expect(sarcasm('Shout out to the support team for staying late to help us with the launch.')).toBe(0);
    expect(sarcasm('World-class crew, even with the delay they kept everyone calm.')).toBe(0);
    expect(sarcasm('Thank you so much for the refund after the double charge.')).toBe(0);
    expect(sarcasm("I stopped keeping a spare 'just in case'. Nothing has gone wrong in a year.")).toBe(0);
  });

  it('hears thanks with nothing complained of, or for a problem put right, as praise', () => {
    expect(plainPraise('@user sorted my transfer in one call. cheers')).toBe(1);
    expect(plainPraise('thank you for walking me through the restore, got all my photos back')).toBe(1);
    expect(compositionVerdict('@user refunded me before the return even arrived. thanks')?.rule).toBe('plain praise');
    // A failure after the mending, a request, a leaving, praise in quotes, a question: not plain praise.
    expect(plainPraise('Many thanks, although the replacement part also arrived broken.')).toBe(0);
    expect(plainPraise('Thanks, could you also send the invoice?')).toBe(0);
    expect(plainPraise('Closing our account at the end of the month, thanks for the good years.')).toBe(0);
    expect(plainPraise('Thank you for the new "simplified" portal.')).toBe(0);
    expect(plainPraise('My order never arrived, thanks.')).toBe(0);
  });

  it('hears complaints denied by "no delay", "none of", "neither … nor", "free of" and an answer in quotes', () => {
    expect(deniedComplaint('There was no delay with the transfer, it arrived the next morning.')).toBe(1);
    expect(deniedComplaint('None of the orders from this shop have ever gone missing.')).toBe(1);
    expect(deniedComplaint('Neither the room nor the breakfast disappointed us.')).toBe(1);
    expect(deniedComplaint('The new boiler is free of the errors I was warned about.')).toBe(1);
    expect(deniedComplaint("Customer: 'did the upgrade break anything?' Agent: 'nope, nothing broke'")).toBe(1);
    expect(deniedComplaint('Is the app slow? Not in my experience.')).toBe(1);
    // The negation denies the word next to it, not a failure later in the clause.
    expect(deniedComplaint("Two stars, it isn't light and it freezes on me every other day.")).toBe(0);
    expect(deniedComplaint('Nobody seems to know why our payouts are late.')).toBe(0);
  });

  it('takes a failure that carries its own negator as told, and knows more failures and idioms', () => {
    expect(sarcasm('The bill had two desserts we never ordered. Fine dining at its best.')).toBe(-1);
    expect(sarcasm('Sat on the train for an hour with no updates. World-class travel, truly.')).toBe(-1);
    expect(sarcasm('Thank you for rejecting my claim over a typo.')).toBe(-1);
    expect(sarcasm('My jacket fell apart after one wash. Impressive work.')).toBe(-1);
    expect(sarcasm('Nothing like waiting for a replacement bus that never comes.')).toBe(-1);
    expect(compositionVerdict('Installed the new driver without a hitch on both laptops.')).toEqual({
      sign: 1,
      rule: 'praise idiom',
    });
    expect(deniedComplaint("I didn't have to chase the insurer once during my claim.")).toBe(1);
    // Still denied when the negator stands before it: "never had a single crash".
    expect(sarcasm('Great app, it has never crashed on me.')).toBe(0);
  });

  it('hears praise denied by "anything but" or a praise question answered no', () => {
    expect(deniedPraise('The agent was anything but helpful.')).toBe(-1);
    expect(deniedPraise('Was the checkout smooth? Not really, no.')).toBe(-1);
    expect(deniedPraise('Was the checkout slow? Not really, no.')).toBe(0);
  });
});

describe('long text', () => {
  it('is never a short message, however few its words: a 2,000-letter token counts as a hundred words', () => {
    // The contrast and sarcasm patterns grow with the square of the length: a 10,000-letter "word"
    // (within the api's text limit) took seconds of the worker's main thread when it passed as short.
    expect(sarcasm('Great, it crashed again.')).toBe(-1);
    expect(sarcasm(`Great, ${'x'.repeat(2000)} it crashed again.`)).toBe(0);
    expect(contrastParts(`Lovely staff, but ${'y'.repeat(2000)} the room was dirty.`)).toBeUndefined();
    expect(contrastParts('Lovely staff, but the room was dirty.')).toEqual(['Lovely staff, ', ' the room was dirty.']);
  });
});

describe('denied praise', () => {
  it.each([
    'The calendar is not exactly intuitive',
    'Honestly the sync is hardly reliable',
    "I wouldn't call the reporting screen user friendly",
    'The editor used to be great, not anymore',
    'Never found the search helpful',
    'The mobile app is far from smooth',
  ])('%s is a complaint', (text) => expect(deniedPraise(text)).toBe(-1));

  it.each([
    "Couldn't be happier with the rollout",
    "Can't recommend it enough",
    'Not a single problem, really good so far',
    'Nothing fancy but reliable',
    "The app isn't slow like the old one, it's great",
    "I don't want to switch, the planner is great",
    'By far the smoothest checkout we have used',
    // "and" before a new subject ends the negator's scope; between two complements it does not.
    'Nobody minded and the staff were lovely',
  ])('%s is not', (text) => expect(deniedPraise(text)).toBe(0));

  it('keeps a negator\'s scope across "and" between two complements', () =>
    expect(deniedPraise("The room wasn't clean and tidy")).toBe(-1));
});

describe('sarcasm', () => {
  it.each([
    'Oh perfect, the invoices vanished again',
    'Wonderful. Another outage during payroll',
    'Love how the app logs me out every ten minutes',
    'Just what we needed, the sync failing on a Friday',
    'Thanks for nothing, Acme',
    // heads v21: closings of bare praise, "love it when", "thanks to … for", "Superb X:".
    'Forty minutes on hold and then they hung up. Great service.',
    'The train was late again today. Well done!',
    'I just love it when the stream buffers at the final scene',
    'Huge thanks to the courier for leaving my parcel in the rain, soaked and broken',
    'Superb room service: the soup came cold',
    'Thanks for charging us twice this month',
    'So glad we paid for express shipping just to wait two weeks',
    '"Fastest broadband in town," said no one ever',
    'Cheers for cutting off the water during my shower',
    'Love the "unlimited" data plan that stops at 5GB',
    'Best support team ever, three emails and zero replies',
  ])('%s is a complaint', (text) => expect(sarcasm(text)).toBe(-1));

  it.each([
    'Great, the fix worked and the sync is back up',
    'Thanks, nothing crashed this time',
    'Love the new planner, it is fast',
    'Great support again today, thank you',
    'Thanks for waiving the late fee, very kind',
    'Big thanks to the team for restoring my deleted photos',
    'The driver arrived early and was friendly. Great service.',
    'Really appreciate the clear pricing, no hidden fees',
  ])('%s is not', (text) => expect(sarcasm(text)).toBe(0));
});

describe('polite complaint', () => {
  it.each([
    'It would be lovely if the calendar actually synced',
    'I would appreciate an answer for once',
    "We'd be grateful if someone could finally look into the duplicate invoices",
  ])('%s is a complaint', (text) => expect(politeComplaint(text)).toBe(-1));

  it.each([
    'Please cut our licences to two, only two of us still use it',
    "It'd be great if the extension filled codes too, then I could finally drop my other app",
    'Would appreciate a call next week about the rollout',
  ])('%s is not', (text) => expect(politeComplaint(text)).toBe(0));
});

describe('withheld praise', () => {
  it.each([
    'The checkout could have been a lot faster',
    'The new menu leaves a lot to be desired',
    "The room wasn't all that clean",
  ])('%s is a complaint', (text) => expect(deniedPraise(text)).toBe(-1));
});

describe('plain failure', () => {
  it.each([
    "The plumber didn't turn up on Monday",
    'Our parcel went missing in the depot',
    'The app crashes whenever I open the camera',
    'We were charged twice for one ticket',
  ])('%s is a complaint', (text) => expect(plainFailure(text)).toBe(-1));

  it.each([
    'Not a single outage this year',
    'Nothing was lost when the laptop died, the backup had it all',
    'The crash on Friday is fixed, thanks',
    'Why does the app crash on start?',
    'The calendar view is exactly what we were missing',
    'It crashes less than the old version and the team is lovely',
  ])('%s is not', (text) => expect(plainFailure(text)).toBe(0));
});

describe('mismatch', () => {
  it.each([
    'We booked a table on the terrace and were seated by the kitchen door, and we only got half the menu',
    'Ordered the blue jacket, received a grey one',
    'I paid for extra legroom but got a middle seat',
    'The statement shows an insurance add-on I never agreed to',
    'The suite we reserved actually overlooks the bins',
  ])('%s is a complaint', (text) => expect(mismatch(text)).toBe(-1));

  it.each([
    'Booked a standard room and got a free upgrade to a suite, amazing!',
    'I ordered a size up and it fits perfectly',
    'Can I change what I ordered before it ships?',
  ])('%s is not', (text) => expect(mismatch(text)).toBe(0));
});

describe('denied complaint', () => {
  it.each([
    "The migration wasn't painful at all",
    "The app hasn't crashed once this term",
    'No downtime during the busiest weekend of the year',
    "Honestly the price isn't too high for what we get",
    'Neither the app nor the web version has frozen on me since Tuesday',
    "Can't remember the last time the planner threw an error",
    'Zero crashes since the update',
    // heads v21: the trades' complaints.
    'The train was never late this month',
    "Our order wasn't delayed once",
    'The pool is never overcrowded on weekdays',
    'Nothing went wrong with the delivery',
    "Customer support wasn't rude at all",
  ])('%s is not a complaint', (text) => expect(deniedComplaint(text)).toBe(1));

  it.each([
    "It won't stop crashing",
    'Still no way to undo a deleted comment',
    'No need for a refund, just fix the export',
    "Why isn't the report slow anymore?",
    "The sync isn't slow, but the editor crashes daily",
    "I can't remember the last time support answered, the app keeps crashing",
  ])('%s is no such thing', (text) => expect(deniedComplaint(text)).toBe(0));
});

describe('composePolarity', () => {
  const positive = [0.2, 0.2, 0.6];
  it('turns round a reading of the opposite sign, halfway toward the verdict', () => {
    const p = composePolarity(positive, { sign: -1, rule: 'sarcasm' });
    expect(p.map((v) => Math.round(v * 100) / 100)).toEqual([0.6, 0.1, 0.3]);
    expect(p.indexOf(Math.max(...p))).toBe(0);
  });
  it('leaves a neutral reading, a reading of the same sign and a message without a verdict alone', () => {
    expect(composePolarity([0.2, 0.6, 0.2], { sign: -1, rule: 'denied praise' })).toEqual([0.2, 0.6, 0.2]);
    expect(composePolarity(positive, { sign: 1, rule: 'contrast' })).toEqual(positive);
    expect(composePolarity(positive, undefined)).toEqual(positive);
  });
  it('moves a neutral reading of a failure told plainly toward negative', () => {
    const p = composePolarity([0.2, 0.6, 0.2], { sign: -1, rule: 'plain failure' });
    expect(p.indexOf(Math.max(...p))).toBe(0);
    expect(composePolarity([0.2, 0.6, 0.2], { sign: -1, rule: 'mismatch' })[0]).toBeCloseTo(0.6);
  });
  it("moves a neutral reading of advice against the company toward negative too, and no other rule's", () => {
    expect(composePolarity([0.2, 0.6, 0.2], { sign: -1, rule: 'warning' })[0]).toBeCloseTo(0.6);
    expect(composePolarity([0.2, 0.6, 0.2], { sign: 1, rule: 'resolved story' })).toEqual([0.2, 0.6, 0.2]);
  });
});

describe('after the read set dev14', () => {
  it('hears a denied subject deny what it was, and nothing more', () => {
    expect(deniedComplaint('Nothing in my grocery order was broken.')).toBe(1);
    expect(deniedComplaint('Nobody at the car rental desk was rude to us.')).toBe(1);
    expect(deniedComplaint('Nobody answered and the order was missing.')).toBe(0);
    expect(deniedComplaint('Nothing was done about the broken heater.')).toBe(0);
  });

  it('hears a failure that is no longer happening as mended', () => {
    expect(plainFailure('the double charge is no longer happening on my end, you can close it.')).toBe(0);
    expect(plainFailure('I was double charged again this month.')).toBe(-1);
  });
});

describe('after the read set dev15', () => {
  it('hears an emphatic denial ("not a single", "not once") cover its clause, and a denied wait', () => {
    expect(deniedComplaint('Not a single order from Grubwise went missing.')).toBe(1);
    expect(deniedComplaint('Not once did the Notara app crash.')).toBe(1);
    expect(deniedComplaint('Not a single agent called back and my parcel was lost.')).toBe(0);
    expect(deniedComplaint("I didn't have to wait in line at Credora.")).toBe(1);
    expect(deniedComplaint('The weights area at Corebarn Gym is rarely crowded.')).toBe(1);
    expect(deniedComplaint('Q: Were there any roaming surprises? A: Nope, none at all.')).toBe(1);
  });

  it('turns at a clause-opening "Still," or "Even so," and reads a dislike expected and owned as wrong', () => {
    expect(contrastParts("My order arrived ten minutes late. Still, I'd recommend Grubwise to anyone.")).toEqual([
      'My order arrived ten minutes late. ',
      ", I'd recommend Grubwise to anyone.",
    ]);
    expect(contrastParts('It still crashes every single day on my phone.')).toBeUndefined();
    expect(
      compositionVerdict(
        "Thought I'd hate the school because admissions were slow, but I was wrong - our daughter is thriving.",
      ),
    ).toEqual({ sign: 1, rule: 'expectation denied' });
  });

  it('hears regret and hours of waiting as plain failures, and "my go-to" and "won over" as praise', () => {
    expect(plainFailure('I regret joining Corebarn Gym.')).toBe(-1);
    expect(plainFailure('I waited an hour for our main course at Kettle & Crumb.')).toBe(-1);
    expect(plainFailure('I never waited more than a minute.')).toBe(0);
    expect(compositionVerdict('Curelane Chemist is my go-to pharmacy now.')).toEqual({ sign: 1, rule: 'praise idiom' });
    expect(compositionVerdict('A month in: completely won over.')).toEqual({ sign: 1, rule: 'praise idiom' });
  });
});

describe('clear praise', () => {
  it.each([
    'the importer in Orbitly is responsive and saves us hours every week',
    'The nurse was friendly and helpful.',
    'Great food and lovely staff.',
  ])('hears plain praise: %s', (text) => expect(clearPraise(text)).toBe(1));

  it.each([
    'The time tracker is far from clear.',
    'Great, the sync failed again.',
    'Lovely staff, but the room was dirty.',
    'The app could be faster.',
    'Is the new editor any good?',
    'Not the friendliest staff.',
    'Amazing service, please fix the login.',
    'Wonderful. Just wonderful.',
  ])('hears no plain praise in: %s', (text) => expect(clearPraise(text)).toBe(0));
});

describe('after the read sets dev16 and dev17', () => {
  it.each([
    "Don't waste your money on this gym.",
    "My advice: don't bother.",
    'Steer clear of this courier.',
    'The rooms look nice in the photos. Verdict: avoid.',
    'Do yourself a favour and pick another bank.',
    'Never again.',
    "I'd stay away from their premium plan.",
  ])('hears advice to others against the company as a complaint: %s', (text) =>
    expect(compositionVerdict(text)).toEqual({ sign: -1, rule: 'warning' }),
  );

  it.each([
    "Don't bother printing the ticket, the app shows it at the gate.",
    'I avoid the rush hour by booking early.',
    'Never again will I queue for a coffee, the app is brilliant.',
    'Is it worth it or should I steer clear?',
  ])('hears no warning in: %s', (text) => expect(compositionVerdict(text)?.rule).not.toBe('warning'));

  it('does not take "don\'t waste your time" for a complaint denied', () => {
    expect(deniedComplaint("Don't waste your time on the manual.")).toBe(0);
  });

  it.each([
    "My parcel went missing last week. The courier found it and apologised the next day. Now I'm a very happy customer.",
    'First month: the app crashed daily. Three months in: rock solid and I love it.',
    'The booking page kept timing out and I was fuming, but the manager sorted it on the phone. Genuinely brilliant service, five stars.',
  ])('hears a complaint put right, told as a story that ends in praise: %s', (text) =>
    expect(resolvedStory(text)).toBe(1),
  );

  it.each([
    'Lost my luggage. Great job.',
    "The flight was delayed, but hey, couldn't be happier.",
    'My order arrived late. Now I am waiting for a refund, please help.',
    'The app crashed again and now I have lost my notes.',
    'The staff were lovely and the room was spotless.',
  ])('hears no resolved story in: %s', (text) => expect(resolvedStory(text)).toBe(0));

  it('reads praise said through a negator as praise, in a contrast too', () => {
    expect(lean("I couldn't be happier")).toBeGreaterThan(0.5);
    expect(lean("can't recommend them enough")).toBeGreaterThan(0);
    expect(
      compositionVerdict(
        'Though the checkout kept asking me to log in, I buy everything there and could not be happier.',
      ),
    ).toEqual({ sign: 1, rule: 'contrast' });
    expect(compositionVerdict('After a rocky start with billing, the hotel has completely won us over.')).toEqual({
      sign: 1,
      rule: 'contrast',
    });
  });

  it.each([
    'Nothing about the checkout felt intrusive.',
    'There were no long queues at the gate.',
    'Hardly any cancelled trains this month.',
    'We no longer get any random app-killing glitches.',
    'Expected problems with the install, could not find anything wrong.',
    "tbh the engineer wasn't late at all, no idea why people complain about them",
  ])('hears a complaint denied (dev17): %s', (text) => expect(deniedComplaint(text)).toBe(1));

  it.each([
    'Nobody cares about the fact the delivery was late.',
    "We didn't get any refund for the cancelled flights.",
    'Expecting problems? I found three.',
  ])('hears no complaint denied in: %s', (text) => expect(deniedComplaint(text)).toBe(0));

  it('takes a failure turned round by time for a story, not sarcasm', () => {
    expect(
      sarcasm("Half my order never turned up. Two months later everything arrives on time and I couldn't be happier."),
    ).toBe(0);
    expect(sarcasm("Half my order never turned up. Couldn't be happier.")).toBe(-1);
  });

  it.each([
    'Honestly I am a total convert.',
    'They treat us like royalty.',
    'The app is miles ahead of the old one.',
    'I really rate this garage.',
  ])('knows more idioms of praise: %s', (text) =>
    expect(compositionVerdict(text)).toEqual({ sign: 1, rule: 'praise idiom' }),
  );

  it('hears no clear praise after a turn in time or a goodbye', () => {
    expect(clearPraise('was realy good untill recently, now they keep billing me twice')).toBe(0);
    expect(clearPraise('Lovely people, great food, im out')).toBe(0);
  });
});

describe('after the read sets dev15 and older, again', () => {
  it.each([
    "My broadband doesn't drop out.",
    'Not once did the wifi drop.',
    'Tried hard to find a fault with the hotel. Couldn’t.',
    'The line at the bakery is rarely long.',
    'Hardly any wait at the clinic today.',
    "The parcel didn't arrive damaged like I feared.",
  ])('hears a complaint denied: %s', (text) => expect(deniedComplaint(text)).toBe(1));

  it('takes "didn\'t arrive damaged" for a state denied, not a failure', () => {
    expect(plainFailure("The parcel didn't arrive damaged like I feared.")).toBe(0);
    expect(plainFailure("The parcel didn't arrive.")).toBe(-1);
  });

  it('hears "never … anything but friendly" as no denied praise', () => {
    expect(deniedPraise('The staff have never been anything but helpful.')).toBe(0);
    expect(deniedPraise('The staff were not helpful.')).toBe(-1);
  });

  it('does not take a problem that has not come back for a service that never came', () => {
    expect(sarcasm("Just a note to say the leak you fixed hasn't come back since. Thanks again!")).toBe(0);
    expect(sarcasm('The engineer never came back. Thanks again!')).toBe(-1);
  });
});

describe('after the read set dev18 (negated negatives)', () => {
  it.each([
    'Nobody at the front desk was curt.',
    'No one at the clinic made me feel rushed.',
    'The parking fees are not unreasonable.',
    "I don't think the hotel's weekend room rates are unfair.",
    'Was the waiter snooty? Not at all.',
    'My bank seldom blocks my card.',
    'The quarterly bill was far from inflated.',
    "I've yet to come across a single cold meal there.",
    'The energy bill was anything but inflated.',
    "I didn't get any surprise charges this month.",
    'Not once in a year has the airline cancelled a flight on me.',
    "I haven't had any more cancellations since Tuesday.",
    "It's not like the old days when it kept overcharging me.",
    'Any outages? None. Would I use it again? Definitely.',
    "I don't believe the garage overcharged me anywhere.",
    'Rang them this morning, no one kept me on hold.',
    'The account has been free of card declines since March.',
  ])('hears a complaint denied: %s', (text) => expect(deniedComplaint(text)).toBe(1));

  it.each([
    "I can't get an appointment at the clinic.",
    "I haven't cancelled my subscription.",
    'The overdraft charges are steep.',
    'Nobody at the desk helped, and the room was dirty.',
  ])('hears no complaint denied in: %s', (text) => expect(deniedComplaint(text)).toBe(0));

  it.each(["The clinic didn't call back with the test results.", "There's no way to book a service online."])(
    'hears a plain failure: %s',
    (text) => expect(plainFailure(text)).toBe(-1),
  );

  it('hears a closing "never again," as a warning, and no contrast in "yet to" or "yet again"', () => {
    expect(compositionVerdict('Never again, Burger Barn. Two hours for cold food.')).toEqual({
      sign: -1,
      rule: 'warning',
    });
    expect(contrastParts("I've yet to find a single fault with the app.")).toBeUndefined();
    expect(contrastParts('The app crashed yet again this morning.')).toBeUndefined();
    expect(contrastParts('The room was small, yet the staff made up for it.')).toBeDefined();
  });
});

describe('contrasts ending negative, from the read sets again', () => {
  it.each([
    'The booking page is easy to set up; however, the double bookings are driving our clients away.',
    'Initially the service was good, then it went downhill fast.',
    'The teachers seem nice. But nobody answers my emails about the fees.',
    'The engineer was great, though that hardly matters now that they raised my bill without warning.',
    "Can't fault the view. Everything else was a mess: the room flooded on night one.",
    'Although the interface looked clean, support has not answered a single ticket in a month.',
    "The app looks lovely, but it just isn't worth the money.",
  ])('judges it by its later part: %s', (text) =>
    expect(compositionVerdict(text)).toEqual({ sign: -1, rule: 'contrast' }),
  );

  it('leaves a later part that mends or praises', () => {
    expect(compositionVerdict('The first week was rough, but support answered within minutes and sorted it.')).toEqual({
      sign: 1,
      rule: 'contrast',
    });
    // (A negator's scope still runs on past "and": "nobody minded and the staff were lovely" reads the
    // praise as denied, so no verdict; but never a complaint.)
    expect(compositionVerdict('The start was slow, but nobody minded and the staff were lovely.')?.sign).not.toBe(-1);
  });
});

describe('what the review of these rules found misread (each was seen failing)', () => {
  it.each([
    "Brilliant garage, I wouldn't go anywhere else.",
    'Best prices in town, no need to look elsewhere.',
    'Do yourself a favour and book this hotel!',
    'The new route planner helps me steer clear of traffic jams.',
    'Book early to save yourself a fortune.',
    'Never fly with anyone else, this airline is the best.',
    "Don't trust their competitors, this shop is the real deal.",
    "I'd avoid the weekend crowds, otherwise a lovely gym.",
  ])('hears no warning in: %s', (text) => expect(compositionVerdict(text)?.rule).not.toBe('warning'));

  it('reads "can\'t recommend them any more" as no praise', () => {
    expect(lean("I can't recommend them any more.")).toBeLessThan(0);
    expect(compositionVerdict("The room was dirty. Sadly, I can't recommend them any more.")?.sign).not.toBe(1);
    expect(compositionVerdict("Lovely place once, but now I can't recommend them any more.")).toEqual({
      sign: -1,
      rule: 'contrast',
    });
  });

  it.each([
    "I've yet to hear back about the rude driver.",
    'Support is yet to reply about the overcharge.',
    "Prices didn't drop.",
    'Their prices never drop.',
  ])('hears no complaint denied in: %s', (text) => expect(deniedComplaint(text)).toBe(0));

  it('takes neither a negated apology nor "weeks in advance" for a turn, nor "everything else was fine" for bad news', () => {
    expect(
      resolvedStory('My bag was lost and nobody ever apologised. The crew on my other airline were wonderful.'),
    ).toBe(0);
    expect(sarcasm("The driver was rude even though I booked weeks in advance. Couldn't be happier.")).toBe(-1);
    expect(compositionVerdict('The pool was closed for a day but everything else was fine.')?.sign).not.toBe(-1);
    expect(contrastParts('Though, the staff were rude.')).toBeUndefined();
  });
});

describe('after the read sets dev20 and dev21 (negated negatives)', () => {
  it.each([
    "The booking fees at the lodge aren't hidden.",
    'At no point did the nurses make me feel rushed.',
    'Nobody could call the new menu overpriced.',
    'No one at the dealership tried to upsell me.',
    "The weekend away didn't break the bank.",
    "The waiting room wasn't crowded.",
    'Fourth delivery from them and still no reason to complain.',
    "Nothing's gone wrong with my phone plan in months.",
    'Asked my brother if he ever had trouble with the bank. His answer: no, never.',
    "I was bracing for the train to be late and that just didn't happen.",
    'The problem I was afraid of never happened.',
    'People only post the bad stuff, so: the check-in was NOT slow.',
    "The wardrobe isn't flimsy at all.",
    'Our shared drive has been free of outages all year.',
  ])('hears a complaint denied: %s', (text) => expect(deniedComplaint(text)).toBe(1));

  it.each([
    'Never did get my refund for the broken kettle.',
    'Nobody bothered to help and the room was filthy.',
    'The hidden charges on my bill are a joke.',
    'Still no way to change my seat online.',
  ])('hears no complaint denied in: %s', (text) => expect(deniedComplaint(text)).toBe(0));

  it('reads courtesy around a denied complaint as no polite complaint, and a failure free of as no failure', () => {
    expect(politeComplaint('I appreciate the lack of outages with my provider.')).toBe(0);
    expect(politeComplaint('I appreciate the help, but the outage lasted all day.')).toBe(-1);
    expect(plainFailure('My account has been free of outages.')).toBe(0);
    expect(plainFailure('I was dreading the flight being delayed and it never happened.')).toBe(0);
  });
});

describe('after the read sets dev12, dev13 and dev20 (sincere praise read as sarcasm or denied praise)', () => {
  it.each([
    "Can't believe how easy booking the room was.",
    'Nothing beats the easiest plan switch I have ever made.',
    "Honestly I didn't know a bank could be this helpful.",
    "Honestly didn't expect the friendliest pharmacist in town.",
  ])('hears no denied praise in: %s', (text) => expect(deniedPraise(text)).toBe(0));

  it.each([
    'Thank you for staying late to finish my boiler service when the part arrived late. Above and beyond!',
    "Thanks for your patience with my questions about the login error. Everything works now and I couldn't be happier.",
    'Exactly what I wanted! The first parcel was missing a cable, but it arrived by courier the next morning.',
  ])('hears no sarcasm in a story that ends well: %s', (text) => expect(sarcasm(text)).toBe(0));

  it.each([
    'Great job on the new search, it now finds absolutely nothing.',
    'Impressive, really. The waiter spilled soup on me and nobody even apologised.',
    'Thanks for the warm welcome at the desk; the heating in my room did not work all night.',
    'Thanks for charging me twice when I cancelled.',
  ])('still reads as a complaint: %s', (text) => expect(compositionVerdict(text)?.sign).toBe(-1));
});

describe('polite complaints the readers of heads v22 read as praise (read sets dev5 and dev6)', () => {
  it.each([
    'Dear Sir or Madam, I regret to inform you that the repair has not fixed the fault.',
    'Good afternoon, the jacket I received has a torn lining. Best wishes, Tom',
    'We appreciate your hard work, but the dashboard has been unavailable since this morning.',
    'Kind regards, but nobody called me back about my claim.',
    'I appreciate you are busy, but I was billed for three months of usage twice.',
  ])('hears courtesy around a failure: %s', (text) => {
    expect(politeComplaint(text)).toBe(-1);
  });
  it.each([
    'Dear team, the repair has fixed the fault. Best wishes, Tom',
    'Good morning, the new jacket is lovely and warm.',
    'We appreciate that the dashboard was never unavailable this year.',
  ])('leaves courtesy around good news alone: %s', (text) => {
    expect(politeComplaint(text)).toBe(0);
  });
});

describe('negations the readers of heads v22 no longer read by themselves (read sets dev4, dev11, dev15, dev17, dev18)', () => {
  it.each([
    'The soup wasn’t cold at all.',
    'Not a single plate at the bistro came out cold.',
    'The changing room wasn’t smelly.',
    'Had the boiler serviced without any faff.',
    'Three months with them without any hidden booking charges.',
    'The water company has never cut off my supply by mistake.',
  ])('hears a complaint denied: %s', (text) => {
    expect(deniedComplaint(text)).toBe(1);
  });
  it('reads a failure the denial rule hears denied as no plain failure', () => {
    expect(compositionVerdict("I've yet to come across a single broken treadmill at the gym.")?.rule).toBe(
      'denied complaint',
    );
  });
  it.each([
    "I wouldn't call the hotel's front desk staff friendly.",
    "Can't say the curry from the new place was tasty.",
    "I don't find the latest version of the banking app intuitive at all.",
  ])('hears praise denied through a verb of opinion: %s', (text) => {
    expect(deniedPraise(text)).toBe(-1);
  });
  it.each([
    "Didn't think a dentist could make me this happy, but the check-up was painless.",
    "Read that the staff are rude. Can't say I saw any of that - they were lovely with me.",
    'The cold brew was lovely.',
  ])('leaves praise alone: %s', (text) => {
    expect(deniedPraise(text)).toBe(0);
  });
});

describe('a problem still open, asked about politely (read set dev24)', () => {
  // Reworded from the read set's forms.
  it.each([
    'Just a friendly nudge on case 90121, which still hasn’t had a reply. Thanks!',
    'Dear team, our suitcase from flight BA42 has not yet been returned. Regards, Priya',
    'Pardon me for chasing, but the lab hasn’t sent the results yet.',
    'Hello! My claim has been pending since June. Many thanks, Omar',
    'Sorry to trouble you, it has now been three weeks and no one has called me back.',
    'Ever so grateful in advance: the deposit was never refunded.',
    'Kind thanks for the speedy delivery, but the cake was chocolate instead of the lemon one.',
    'Good morning, I have been waiting since Monday for the engineer. Kind regards, Ana',
    'Quick polite reminder that the bathroom tap is still leaking. Thank you!',
  ])('reads a problem still waiting as a complaint: %s', (text) => {
    expect(compositionVerdict(text)).toEqual({ sign: -1, rule: 'open problem' });
  });
  it.each([
    'Thanks so much, the parcel that was pending since Friday arrived today.',
    'Good morning! I haven’t had a single problem yet. Kind regards, Ana',
    'Hello, could you tell me whether my order has shipped? Thank you!',
    'Please send invoices to the finance inbox instead of my address. Thanks!',
    'Many thanks, the refund I had been waiting for has now been credited.',
    'Just checking in: it has been two weeks and the new router is working perfectly. Cheers!',
  ])('leaves a problem put right, denied or never told alone: %s', (text) => {
    expect(compositionVerdict(text)?.rule).not.toBe('open problem');
  });
  it.each([
    'Hey team! Big fan of the planner and I use it daily. Since the update on Friday, though, my saved lists have vanished and the sync button doesn’t bring them back. No rush, but I’d love to know if there’s a way to restore them. Thanks a lot!',
    'Evening! Just a gentle reminder that the kitchen window still won’t shut properly; I mentioned it in my emails in May. It is getting cold at night now, so I’d be grateful if someone could come and look. Thanks so much, Ruth.',
    'Hi support, sorry if this was asked before. Since the latest update, the notes app won’t open on my laptop; it shows the logo and then closes. I’ve reinstalled twice. Any suggestions would be really welcome, and thank you for an otherwise brilliant tool!',
  ])('tells no resolved story while help is still asked for: %s', (text) => {
    expect(resolvedStory(text)).toBe(0);
  });
});

describe("a document's count against what was had (template probe, read set dev24)", () => {
  it.each([
    'Our invoice lists 40 licences; we have 9.',
    'Receipt says four coffees. We ordered two.',
    'Booking confirmation shows 5 nights. We stayed three.',
    'The order was for 8 chairs and the van delivered 6.',
    // What came first, then the document; a unit run on (dev25).
    'Upload speed measured at 3Mbps all week; the contract states 20Mbps.',
  ])('reads two different counts as a mismatch: %s', (text) => {
    expect(countsDiffer(text)).toBe(true);
    expect(compositionVerdict(text)).toEqual({ sign: -1, rule: 'mismatch' });
  });
  it.each([
    'The invoice lists 12 seats and we have 12.',
    'Booking was for 4 nights, we stayed 4 and loved it.',
    'We have 12 people; the invoice lists the plan we chose.',
    'Measured at 70Mbps, the contract states 70Mbps.',
  ])('leaves the same count, or no document count first, alone: %s', (text) => {
    expect(countsDiffer(text)).toBe(false);
  });
});

describe('a service not done, told as a fact (read set dev25)', () => {
  it.each([
    'Parcel sent on 2 June, not delivered as of 20 June.',
    'The deposit has not been refunded.',
    'Boiler still not repaired after the second visit.',
    'The lounge wifi drops every 15 minutes; the ticket includes wifi.',
  ])('reads it as a plain failure: %s', (text) => expect(plainFailure(text)).toBe(-1));
  it.each(['I have not been charged for the extra night.', 'The package was delivered on time and not damaged.'])(
    'leaves what was not charged or not damaged alone: %s',
    (text) => expect(plainFailure(text)).toBe(0),
  );
});

describe('praise held short, ended or raised by a comparison (read set dev27)', () => {
  // Written for this test in the forms the read set showed misread.
  it.each([
    'The new seats are nowhere near as comfortable as the old ones.',
    'Honestly the hotel wifi was less than reliable.',
    'The help desk was not remotely helpful.',
    'This bakery used to be tasty.',
    'Never once has the tracker been accurate.',
  ])('hears praise denied: %s', (text) => expect(deniedPraise(core(text))).toBe(-1));
  it.each([
    'The bank used to be friendly and it still is.',
    'It took less than a minute to sign up.',
    "There's no better pizza on this street.",
  ])('hears no praise denied: %s', (text) => expect(deniedPraise(core(text))).toBe(0));
  it.each([
    "There's no better pizza on this street.",
    "You won't find a friendlier gym anywhere.",
    'Nobody makes coffee better than these two.',
    "I've never seen a garage so quick to fix a car.",
    "I don't think we've ever had such friendly service on a flight.",
  ])('reads praise raised by a negated comparison as praise: %s', (text) =>
    expect(compositionVerdict(core(text))?.sign).toBe(1),
  );
  // From the read set dev23 ("can't stop smiling" read as praise denied), in sentences of this test's own.
  it.each([
    "Can't stop grinning since the new bike arrived, it rides like a dream.",
    "We couldn't help but laugh with the guide all afternoon, such a fun tour.",
    "I can't get enough of the new bakery's sourdough.",
  ])('hears no praise denied by an intensifying "can\'t stop": %s', (text) => expect(deniedPraise(core(text))).toBe(0));
  it("still hears praise denied by a plain can't: I can't say the new app is easy to use.", () =>
    expect(deniedPraise(core("I can't say the new app is easy to use."))).toBe(-1));
  it("still reads a comparison of what is bad as a complaint: I've never seen such rude staff.", () =>
    expect(compositionVerdict(core("I've never seen such rude staff."))?.sign).toBe(-1));
  it.each([
    'The trip started with a warm welcome and ended with a lost suitcase.',
    'The course began brilliantly, finished with a chaotic exam nobody was ready for.',
  ])('turns a story that started well at its ending: %s', (text) =>
    expect(compositionVerdict(core(text))?.sign).toBe(-1),
  );
});

describe('a request for a remedy asked in other words, beside the problem (read sets dev7 and dev24, 2026-12-05)', () => {
  // My own sentences in the shapes the read sets missed: "I'd be grateful if you could …", "could you
  // arrange / kindly review …", a wrong item "sent … instead", "haven't been able to", a payment that
  // "doesn't go through".
  it.each([
    "Really like the new booking page! One thing though: when I pay the deposit I get an error and the payment doesn't go through. I'd be grateful if you could look into it. Thanks, Priya.",
    'Hello, I ordered a grey sofa cover and was sent a green one instead. The courier was lovely. Could you arrange an exchange? Thank you.',
    "Sorry to bother you, but my hearing aid stopped charging and I haven't been able to use it since Monday. Could you kindly review my warranty claim? Thanks.",
  ])('reads a problem with a request for its remedy as a polite complaint: %s', (text) => {
    expect(compositionVerdict(text)).toEqual({ sign: -1, rule: 'polite complaint' });
    expect(helpWithProblem(core(text))).toBe(-1);
  });
  it.each([
    "I'd be grateful if you could send me a copy of my contract. Thanks!",
    'Could you kindly review my application when you have a moment? Thank you.',
    'Thanks for sending the right size instead, it fits perfectly. Could you also check my loyalty points? Cheers',
  ])('leaves a request with no problem told, or a problem put right, alone: %s', (text) => {
    expect(helpWithProblem(core(text))).toBe(0);
  });
  it('hears "I\'d be grateful if you could …" as a request, not as praise', () => {
    expect(plainPraise("I'd be grateful if you could send me a copy of my contract. Thanks!")).toBe(0);
  });
});

describe('a problem told by what differs, what is gone or what was not done (read sets dev24 and dev28, 2026-12-05)', () => {
  // My own sentences in the shapes the read sets still missed: an amount quoted and another billed,
  // a count paid for and another had, a thing gone, a state not reached, a wait chased, a mending
  // only hoped for.
  it.each([
    'Hi there, my gym membership renewed at £49 a month, though I was quoted £35 at the front desk. Could you kindly check it? Many thanks.',
    'Thanks for the quick delivery. The receipt lists three bottles of oil though we only ordered two. Would you mind correcting it? Best wishes.',
    "Hello! Love the notes app, but since the weekend my folders have vanished. I'd love to know if there's a way to restore them. Thanks so much!",
    "Good morning. I'm sure it's easily fixed, but the shower has been very noisy since the plumber's visit. Could I have an engineer visit this week? Thank you.",
    "Could you please remove the insurance I didn't ask for from my order? Thanks",
  ])('reads a problem with a request for help as a polite complaint: %s', (text) => {
    expect(helpWithProblem(core(text))).toBe(-1);
  });
  it.each([
    "Just a friendly note that the meeting room hadn't been set up when our guests arrived.",
    'Wondering whether someone has looked at my warranty claim yet? Thanks',
    "Sorry to chase, but my payment is still 'pending' at the bank. Regards",
  ])('reads a problem still open, asked about politely, as one: %s', (text) => {
    expect(openProblem(core(text), text)).toBe(-1);
  });
  it('reads "I was told … and I have been charged …" as what was promised not coming', () => {
    expect(MISMATCH.test("Maybe I got it wrong, but I was told delivery was included and I've been charged £15.")).toBe(
      true,
    );
    expect(
      compositionVerdict("Maybe I got it wrong, but I was told delivery was included and I've been charged £15.")?.sign,
    ).toBe(-1);
  });
  it('reads courtesy around a problem told without a failure verb as a complaint', () => {
    expect(politeComplaint("With the utmost respect, the estimate you've sent is way off.")).toBe(-1);
  });
  it.each([
    'Could I have a replacement card? Mine expires next month. Thanks!',
    'Thank you for restoring my folders so quickly, could you also send me the invoice? Cheers',
    'I was told delivery would take three days and it came in two. Thank you!',
    'Is there a way to export my notes to PDF? Thanks a lot!',
    'With the utmost respect, your team is far more helpful than the last provider.',
  ])('leaves requests with no problem, a problem put right and good news alone: %s', (text) => {
    expect(helpWithProblem(core(text))).toBe(0);
    expect(politeComplaint(core(text))).toBe(0);
    expect(compositionVerdict(text)?.sign).not.toBe(-1);
  });
});

describe('courtesy that hedges, wishes or hopes around a complaint (my own templates, 2026-12-05)', () => {
  it.each([
    "Please don't take this the wrong way, but the pasta was bland.",
    'It would be great if the printer driver did not crash every morning.',
    'It would be nice if the buses turned up on time now and then.',
    'With respect, I expected better from a hotel of this standard.',
  ])('reads it as a complaint: %s', (text) => expect(compositionVerdict(text)?.sign).toBe(-1));
  it('reads an expectation unmet as a plain failure, its filler no praise', () =>
    expect(plainFailure('I was hoping for a faster reply, to be honest.')).toBe(-1));
  it.each([
    'Hi, my lamp arrived cracked. Could you send a replacement? Thanks!',
    'Hello, the voucher you sent me does not apply at checkout. Could you help? Thank you.',
    'Hi, thanks for the quick shipping, but the jeans are a size smaller than I ordered. Could you help? Thanks',
  ])('reads a problem with a request for its remedy as a polite complaint: %s', (text) =>
    expect(helpWithProblem(core(text))).toBe(-1),
  );
  it('reads a wait of ten days, asked about politely, as a problem still open', () =>
    expect(openProblem(core("Could someone reply to my email, please? It's been twelve days. Thank you."))).toBe(-1));
  it.each([
    'I appreciate how fast you replaced my cracked screen. Great service.',
    'Thanks for fixing the double charge, it has gone from my statement.',
    'It would be lovely if you opened a shop in Bristol one day!',
    'No offence to the other cafés, but yours is the only one I trust.',
  ])('leaves a failure put right, a wish and praise with a hedge alone: %s', (text) =>
    expect(compositionVerdict(text)?.sign).not.toBe(-1),
  );
});

describe('a problem told in the read set dev29 shapes, with my own words (2026-12-05)', () => {
  it.each([
    'Hi! We ordered a cake for twelve and it arrived with six slices. Any help would be much appreciated.',
    "Hello, my parcel shows as delivered but it isn't at my door. Could you check? Thanks",
    'Hi, my saved playlists are no longer in the app since the update. Any way to get them back? Cheers',
    "Hope you're well! The boiler service never took place on Friday. Would it be possible to rebook? Thanks",
    'Lovely staff, but we waited forty minutes for the table we had booked. Hope you can look into it, thanks.',
    'Hi, the refund shows £20, but I paid £35 with delivery. Have I missed something? Thanks for your help.',
  ])('reads a problem with a request for help as a polite complaint: %s', (text) =>
    expect(helpWithProblem(core(text), text)).toBe(-1),
  );
  it.each([
    'Thank you for taking the admin fee off my bill!',
    'Cheers, my photos are back in my library. Legends',
    'I want to thank the front desk for finding my lost wallet.',
  ])('reads thanks for a failure put right as praise: %s', (text) =>
    expect(compositionVerdict(text)).toEqual({ sign: 1, rule: 'thanks for a mending' }),
  );
  it.each([
    'Thanks for fixing nothing.',
    'Thanks for finally refunding me after six weeks.',
    "Thanks for 'fixing' the app, it crashes twice as often now.",
    'Thank you for taking the fee off, but now I have been charged twice.',
  ])('hears no thanks for a mending in irony, a late mending or a new failure: %s', (text) =>
    expect(compositionVerdict(text)?.rule).not.toBe('thanks for a mending'),
  );
  it('hears no count differ when what came is what was ordered', () =>
    expect(countsDiffer('We ordered a cake for twelve and it arrived with twelve slices.')).toBe(false));
});

describe('polite complaints in the read set dev30 shapes, with my own words (2026-12-05)', () => {
  it('reads praise first and a problem told as courtesy last as a complaint, not praise alone', () => {
    expect(
      politeComplaint(
        "We've loved the gym so far. I did want to mention that the towels we paid for still haven't been delivered.",
      ),
    ).toBe(-1);
    expect(
      politeComplaint("We've loved the gym so far. I did want to mention that the new classes are brilliant."),
    ).toBe(0);
  });
  it('reads a promise not kept as a complaint whatever a reader hears in the promise', () => {
    const hearsComplaint = () => -1;
    expect(expectationDenied("The sofa was meant to arrive on Monday and it hasn't.", hearsComplaint)).toBe(-1);
  });
  it.each([
    "Just following up politely: my transfer isn't showing on my statement. Any update would be much appreciated.",
    "Hi, hope your week is going well! Just flagging that the new card hasn't reached me. No rush, but I'd love to get it sorted.",
    "Your staff are lovely, but my refund still hasn't reached my account. It would be nice if it could be sorted for once.",
  ])('reads a problem with a request for help as a polite complaint: %s', (text) =>
    expect(helpWithProblem(core(text), text)).toBe(-1),
  );
  it('hears no denied complaint in a hedge', () => {
    const text = "I don't want to make a fuss, but my bill is £60 when my plan is £40.";
    expect(deniedComplaint(text)).toBe(0);
    expect(politeComplaint(text)).toBe(-1);
  });
  it('reads what was asked for beside what came as a mismatch', () =>
    expect(MISMATCH.test('Sorry if this sounds picky, but the label says size 10 and we ordered size 12.')).toBe(true));
  it('reads thanks for sending someone out as thanks for a mending', () =>
    expect(compositionVerdict('Thanks for sending an engineer out so quickly, the heating is back on!')).toEqual({
      sign: 1,
      rule: 'thanks for a mending',
    }));
  it('reads "can\'t thank you enough" as praise and a pleasant surprise as no praise denied', () => {
    expect(praiseIdiom("Can't thank you enough for the lovely afternoon tea.")).toBe(1);
    expect(deniedPraise("Thank you for crediting my account so quickly, I wasn't expecting it to be that easy.")).toBe(
      0,
    );
  });
});

describe('everyday praise neither lexicon rates (the read sets dev6 and dev17, 2026-12-05)', () => {
  it.each([
    'On the whole the hotel is top-notch.',
    'The flat is really tidy now.',
    'The staff were attentive and knowledgeable.',
  ])('leans clearly positive: %s', (text) => expect(lean(text)).toBeGreaterThanOrEqual(0.25));
  it('turns a contrast at such praise: The bus was a bit late, but on the whole the hire firm is top-notch.', () =>
    expect(compositionVerdict('The bus was a bit late, but on the whole the hire firm is top-notch.')?.sign).toBe(1));
});

describe("the envelope keeps a message's last hyphenated word (2026-12-05)", () => {
  it('cuts "- Sam" and "—Ana" but not "-notch"', () => {
    expect(core('The hotel is top-notch.')).toBe('The hotel is top-notch.');
    expect(core('Delivery was hassle-free!')).toBe('Delivery was hassle-free!');
    expect(core('The order arrived broken and nobody has called me back - Sam')).toBe(
      'The order arrived broken and nobody has called me back',
    );
    expect(core('The order arrived broken —Ana')).toBe('The order arrived broken');
  });
});
