import { describe, expect, it } from 'vitest';
import { AttributeCeiling, attributeValueText, attributeWeight, numericText } from './attribute-bounds.js';

/**
 * The bound is counted on PostgreSQL's text of the stored jsonb (what the fold measures): a number
 * is printed as a plain decimal (numeric has no exponent), a string as its escaped JSON text.
 * test/integration/attribute-weight.test.ts checks the same rules against PostgreSQL itself.
 */
describe('numericText: a number as PostgreSQL prints it from jsonb', () => {
  it.each([
    [0, '0'],
    [-0, '0'],
    [42, '42'],
    [-7, '-7'],
    [123.456, '123.456'],
    [0.1 + 0.2, '0.30000000000000004'],
    [2 ** 53 + 2, '9007199254740994'],
    [-(2 ** 53), '-9007199254740992'],
    [1.2345678901234568e20, '123456789012345680000'],
    [1e-6, '0.000001'],
  ])('%s prints as JavaScript does when JavaScript has no exponent', (n, text) => {
    expect(numericText(n)).toBe(text);
  });

  it.each([
    [1e21, '1' + '0'.repeat(21)],
    [-1e21, '-1' + '0'.repeat(21)],
    [1e300, '1' + '0'.repeat(300)],
    [1.7976931348623157e308, '17976931348623157' + '0'.repeat(292)],
    [1.5e-7, '0.00000015'],
    [1e-7, '0.0000001'],
    [-2.5e-8, '-0.000000025'],
    [5e-324, '0.' + '0'.repeat(323) + '5'],
    [-1.2345e-100, '-0.' + '0'.repeat(99) + '12345'],
  ])('%s is written out in full (no exponent)', (n, text) => {
    expect(numericText(n)).toBe(text);
  });

  it('1e300 weighs 301 bytes, not the 6 of its JSON text', () => {
    expect(JSON.stringify(1e300)).toBe('1e+300');
    expect(attributeWeight({ big: 1e300 })).toEqual({ keys: 1, bytes: 3 + 301 });
  });
});

describe('attributeValueText: strings, booleans and null', () => {
  it.each([
    ['plain', '"plain"'],
    ['quote " and backslash \\', '"quote \\" and backslash \\\\"'],
    ['\b\f\n\r\t', '"\\b\\f\\n\\r\\t"'],
    ['\u0001\u001f', '"\\u0001\\u001f"'],
    ['\u007f/', '"\u007f/"'],
    ['é€😀\u2028', '"é€😀\u2028"'],
  ])('%j is its escaped JSON text', (s, text) => {
    expect(attributeValueText(s)).toBe(text);
  });

  it('booleans and null are their JSON words', () => {
    expect([true, false, null].map(attributeValueText)).toEqual(['true', 'false', 'null']);
  });

  it('counts UTF-8 bytes of the key and of the text', () => {
    // "é" is 2 bytes, "😀" 4, a control character 6 once escaped.
    expect(attributeWeight({ é: '😀', k: '\u0001', n: null, b: false })).toEqual({
      keys: 4,
      bytes: 2 + 6 + (1 + 8) + (1 + 4) + (1 + 5),
    });
  });
});

describe('AttributeCeiling: the most a user can weigh whatever order its folds run in', () => {
  it('counts each key once, with its largest candidate value, whichever came first', () => {
    const c = new AttributeCeiling();
    c.add({ a: 'x'.repeat(10), b: 1 });
    expect(c.weight()).toEqual({ keys: 2, bytes: 1 + 12 + 1 + 1 });
    c.add({ a: 'y' });
    expect(c.weight()).toEqual({ keys: 2, bytes: 1 + 12 + 1 + 1 });
    c.add({ a: 'z'.repeat(20), c: 1e21 });
    expect(c.weight()).toEqual({ keys: 3, bytes: 1 + 22 + 1 + 1 + 1 + 22 });
  });
});
