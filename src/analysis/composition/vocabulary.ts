/**
 * Which words praise and which complain, for the composition rules: our lexicon's and VADER's clear
 * ones, and the words of reviews neither rates. (The rules that use them: ../composition.ts.)
 */
import { VADER_LEXICON } from '../lexicon-words.js';
import { ownValence } from '../lexicon.js';

/**
 * Words both lexicons rate as positive that are not praise of the product when denied: "couldn't
 * help", "don't like to ask", "not sure", "not free", "no thanks", "don't want to".
 */
const NOT_PRAISE = new Set([
  'help',
  // "customer support was far from great": the team's name, not praise.
  'support',
  'like',
  'want',
  'sure',
  'free',
  'thank',
  'thanks',
  'please',
  'ok',
  'okay',
  'yes',
  'wish',
  'care',
  'fix',
  'fixed',
  'justify',
  'worth',
  'better',
  'hope',
  'interested',
  'ready',
  'agree',
  'safe',
  'true',
  'clear',
  'improve',
  'improved',
  'lol',
  'haha',
  'lmao',
  'honest',
  'honestly',
  'frankly',
  'really',
  'actually',
  'truly',
  // Intensifiers VADER rates as praise: "Definitely not reasonable!" praises nothing.
  'definitely',
  'certainly',
  'absolutely',
  'surely',
]);

/**
 * Praise and complaint words of software reviews that neither lexicon rates (VADER has no
 * "dependable", ours no "accurate"); used only by these rules, so the readers' features stay as
 * trained.
 */
export const MORE_PRAISE = new Set([
  // Won over (after the dev15 read set).
  'hooked',
  'dependable',
  'accurate',
  'consistent',
  'responsive',
  'polished',
  'snappy',
  'speedy',
  'effortless',
  'trustworthy',
  'stable',
  'robust',
  'worthwhile',
  'affordable',
  'reasonable',
  'fair',
  'usable',
  'readable',
  'straightforward',
  // Food, travel and places (heads v21): the trades beyond software.
  'tasty',
  'delicious',
  'punctual',
  'spacious',
  'comfy',
  'courteous',
  // Adjectives of everyday reviews neither lexicon rates (heads v21, after templates in the manner of
  // CheckList's own: "I don't think the app is buggy", "I can't say it was boring").
  'professional',
  'convenient',
]);

export const MORE_COMPLAINT = new Set([
  'crashed',
  'froze',
  'frozen',
  'downtime',
  'outages',
  'glitchy',
  'unreasonable',
  'overcomplicated',
  'complicated',
  'hassle',
  'headache',
  'unbearable',
  'unusable',
  'slower',
  'laggy',
  'unstable',
  'unreliable',
  'unresponsive',
  'overpriced',
  'pricey',
  'dropping',
  'drops',
  'unable',
  'inaccurate',
  'wrong',
  // Food, travel, places and things (heads v21): complaints neither lexicon rates.
  'delayed',
  'late',
  'overcrowded',
  'overbooked',
  'undercooked',
  'overcooked',
  'soggy',
  'stale',
  'lukewarm',
  'mould',
  'mold',
  'mouldy',
  'moldy',
  'filthy',
  'noisy',
  'unhelpful',
  'buffering',
  'buffers',
  'faulty',
  'faults',
  'leaking',
  'broken',
  'damaged',
  'downhill',
  'cramped',
  'rushed',
  'chaotic',
  'fuss',
  'delays',
  // Manners, crowds and faults of devices (after the dev15 read set).
  'condescending',
  'dismissive',
  'impatient',
  'patronising',
  'patronizing',
  'pushy',
  'sticky',
  'crowded',
  'glitch',
  'glitches',
  'drain',
  'drains',
  'lag',
  'lags',
  // Anger, damage and faults of things, sound and screens (heads v21, after the dev5 read set).
  'fuming',
  'livid',
  'seething',
  'trash',
  'garbage',
  'smh',
  'torn',
  'cracked',
  'dented',
  'scratch',
  'scratches',
  'dent',
  'dents',
  'scuff',
  'scuffs',
  'stain',
  'stains',
  'scratched',
  'stained',
  'inaudible',
  'flicker',
  'flickers',
  'flickering',
  // Everyday review adjectives neither lexicon rates clearly enough (see MORE_PRAISE).
  'buggy',
  'boring',
  'mediocre',
  'tedious',
  'sloppy',
  'awkward',
  'atrocious',
  'subpar',
  'hideous',
  'inconvenient',
  'patchy',
  'spotty',
  'flaky',
  'steep',
  // Having to chase a company is a complaint ("didn't have to chase them once" denies one).
  'chase',
  'chasing',
]);

/** A word said as praise: our lexicon's (which knows "fast", "intuitive", "reliable") or VADER's clear ones. */
export const praise = (word: string) =>
  !NOT_PRAISE.has(word) &&
  (MORE_PRAISE.has(word) || (ownValence(word) ?? 0) >= 0.3 || (VADER_LEXICON[word] ?? 0) >= 1.5);

export const complaint = (word: string) =>
  MORE_COMPLAINT.has(word) || (ownValence(word) ?? 0) <= -0.3 || (VADER_LEXICON[word] ?? 0) <= -1.5;
