import { describe, expect, test } from 'vitest';
import { parseSizeBytes } from '../../../../agent/collectors/disk-inventory';
import { parseMemTotalBytes } from '../../../../agent/collectors/host';
import { boundedText, fittingText, parseCount, parseCounter, parseDecimal, unitsToBytes } from '../../../../agent/collectors/values';

describe('strict kernel value readers', () => {
  test('parseCounter takes unsigned decimal digits up to u64 and nothing else', () => {
    expect(parseCounter(' 18446744073709551615\n')).toBe(2 ** 64);
    expect(parseCounter('0')).toBe(0);
    for (const odd of ['', ' ', '-1', '1.5', '1e3', '0x10', 'NaN', '12abc', '9'.repeat(30), undefined]) expect(parseCounter(odd), String(odd)).toBeNull();
  });

  test('a count of units in bytes past the largest measurement a report carries (10^18) is no reading', () => {
    expect(unitsToBytes(1_953_525_168, 512)).toBe(1_000_204_886_016); // a 1 TB disk's size file
    expect(unitsToBytes(1e18 / 1024, 1024)).toBe(1e18);
    expect(unitsToBytes(1e18 / 1024 + 1, 1024)).toBeNull();
    expect(unitsToBytes(null, 512)).toBeNull();
    // Found by the garbled-files fuzz: a size file of 2^64 sectors made a disk the ingest refuses.
    expect(parseSizeBytes('18446744073709551616')).toBeNull();
    expect(parseMemTotalBytes('MemTotal:       18446744073709551615 kB\n')).toBeNull();
    expect(parseMemTotalBytes('MemTotal:       16318012 kB\n')).toBe(16_318_012 * 1024);
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
