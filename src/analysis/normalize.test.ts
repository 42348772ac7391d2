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
