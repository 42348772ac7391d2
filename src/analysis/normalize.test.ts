import { describe, expect, it } from 'vitest';
import { EMAIL_TOKEN, HANDLE_TOKEN, normalizeText, URL_TOKEN } from './normalize.js';

describe('normalizeText', () => {
  it('replaces handles, links and e-mail addresses by placeholders', () => {
    expect(
      normalizeText('@acme_help the invoice link https://pay.example.com/i/42?x=1 is dead, mail me at jo.doe@corp.io'),
    ).toBe(`${HANDLE_TOKEN} the invoice link ${URL_TOKEN} is dead, mail me at ${EMAIL_TOKEN}`);
    expect(normalizeText('see www.example.org/status.')).toBe(`see ${URL_TOKEN}`);
    expect(normalizeText('thanks,@sam!')).toBe(`thanks,${HANDLE_TOKEN}!`);
  });

  it('gives every length of an elongated word one spelling, the lexicon word when there is one', () => {
    expect(normalizeText('sooo slow')).toBe(normalizeText('sooooooo slow'));
    expect(normalizeText('I loooove it')).toBe('I love it');
    expect(normalizeText('Baaaad update')).toBe('Bad update');
    expect(normalizeText('goooood')).toBe('good');
    // Ordinary double letters are left alone.
    expect(normalizeText('a good tool, too')).toBe('a good tool, too');
  });

  it('is idempotent and leaves other text as it is', () => {
    const samples = ['@a @b sooo gooood!!! https://x.y/z', 'Préférences perdues :( #fail', 'e-mail: a@b.co', ''];
    for (const t of samples) expect(normalizeText(normalizeText(t))).toBe(normalizeText(t));
    expect(normalizeText('Préférences perdues :( #fail')).toBe('Préférences perdues :( #fail');
  });
});

describe('normalizeText, shouting', () => {
  it('lower-cases shouted words of four letters or more and keeps short acronyms', () => {
    expect(normalizeText('WORST UPDATE EVER, the SSO is down')).toBe('worst update ever, the SSO is down');
    expect(normalizeText('why is it down again?!?!')).toBe('why is it down again?');
    expect(normalizeText('Great!!!')).toBe('Great!');
  });
});

describe('normalizeText, chat spelling', () => {
  it('undoes an elongation to a common word when no lexicon word is there', () => {
    expect(normalizeText('it has been soooo buggy')).toBe('it has been so buggy');
    expect(normalizeText('the client is quiiick')).toBe('the client is quick');
    expect(normalizeText('feels unreliableeee.')).toBe('feels unreliable.');
    expect(normalizeText('nooo not again')).toBe('no not again');
    // Not to a single letter, and a name keeps two letters.
    expect(normalizeText('dates as DD/MM/YYYY')).toBe('dates as DD/MM/YY');
    expect(normalizeText('Orbitlyyy is down')).toBe('Orbitlyy is down');
  });

  it('puts back apostrophes and spells out chat abbreviations', () => {
    expect(normalizeText('dont like it, u r the worst, thx')).toBe("don't like it, you are the worst, thanks");
    expect(normalizeText('Im not happy bc it isnt working pls fix tmrw')).toBe(
      "I'm not happy because it isn't working please fix tomorrow",
    );
    expect(normalizeText('Dont ever buy this, w/ or w/o the discount')).toBe(
      "Don't ever buy this, with or without the discount",
    );
    // Forms that are words themselves stay; a capital U is no "you".
    expect(normalizeText('its ok, we were happy and I feel ill, well done')).toBe(
      'its ok, we were happy and I feel ill, well done',
    );
    expect(normalizeText('Section U of the form')).toBe('Section U of the form');
    expect(normalizeText('pls fix it, the u.s. store is down, thank u.')).toBe(
      'please fix it, the u.s. store is down, thank you.',
    );
    expect(normalizeText('TY for the help, BC and U are grades')).toBe('TY for the help, BC and U are grades');
  });

  it('mends a swapped pair or a doubled vowel when one common word is the only mending', () => {
    expect(normalizeText('we decided to levae after six mnoths')).toBe('we decided to leave after six months');
    expect(normalizeText("i'm done with Brightdesk, swithcing to Marlowe")).toBe(
      "i'm done with Brightdesk, switching to Marlowe",
    );
    expect(normalizeText('soo good, the sync is not sloow anymore')).toBe('so good, the sync is not slow anymore');
    // Jargon and names are no typos: no first-letter swap, no short swap, no doubled consonant.
    expect(normalizeText('the tech team fixed the cron job for my sso login, thanks')).toBe(
      'the tech team fixed the cron job for my sso login, thanks',
    );
    expect(normalizeText('my bill didnt go up this month,which was a nice suprise')).toBe(
      "my bill didn't go up this month, which was a nice surprise",
    );
    expect(normalizeText('see site.com for it, the repo is fine')).toBe('see site.com for it, the repo is fine');
    expect(normalizeText('Levae is our vendor')).toBe('Levae is our vendor');
  });

  it('leaves a message in another language as it is', () => {
    const german = 'Wäre toll, wenn man im Kalender die Feiertage pro Bundesland einblenden könnte.';
    expect(normalizeText(german)).toBe(german);
    const french = 'La lettre est arrivée en retard, merci.';
    expect(normalizeText(french)).toBe(french);
  });

  it('stays idempotent', () => {
    for (const t of ['idk tbh, im rly not sure u r right', 'soooo gooood, thx!!', 'levae it w/ me pls'])
      expect(normalizeText(normalizeText(t))).toBe(normalizeText(t));
  });
});
