import { describe, expect, test } from 'vitest';
import { boundedText, fittingText, parseCount, parseCounter, parseDecimal } from '../../../../agent/collectors/values';

describe('strict kernel value readers', () => {
  test('parseCounter takes unsigned decimal digits up to u64 and nothing else', () => {
    expect(parseCounter(' 18446744073709551615\n')).toBe(2 ** 64);
    expect(parseCounter('0')).toBe(0);
    for (const odd of ['', ' ', '-1', '1.5', '1e3', '0x10', 'NaN', '12abc', '9'.repeat(30), undefined]) expect(parseCounter(odd), String(odd)).toBeNull();
  });

  test('parseCount also refuses what the server cannot store as int4, or the protocol as a safe integer', () => {
    expect(parseCount('2147483647')).toBe(2_147_483_647);
    expect(parseCount('2147483648')).toBeNull();
    expect(parseCount('4294967295')).toBeNull();
    expect(parseCount('40000', 32_767)).toBeNull();
  });

  test('parseDecimal takes "0.35" and "12" but not signs, exponents or NaN', () => {
    expect(parseDecimal('0.35')).toBe(0.35);
    expect(parseDecimal('12')).toBe(12);
    for (const odd of ['-0.1', '1e5', '.5', '5.', 'NaN', 'Infinity', '']) expect(parseDecimal(odd), odd).toBeNull();
  });

  test('boundedText drops control characters and never cuts a surrogate pair in half', () => {
    expect(boundedText(' QEMU\u0000 HARDDISK\u001b\n', 200)).toBe('QEMU HARDDISK');
    expect(boundedText('ab😀', 3)).toBe('ab');
    expect(boundedText('ab😀', 4)).toBe('ab😀');
  });

  test('fittingText gives null for text that is empty or too long once cleaned, instead of cutting a name', () => {
    expect(fittingText('vda', 200)).toBe('vda');
    expect(fittingText('x'.repeat(201), 200)).toBeNull();
    expect(fittingText(' \u0000 ', 200)).toBeNull();
    expect(fittingText(undefined, 200)).toBeNull();
  });
});
