import { describe, expect, test } from 'vitest';
import { parseCpuList } from '../../../../agent/collectors/cpu-list';

describe('parseCpuList', () => {
  test('expands ranges and single CPUs into sorted numbers', () => {
    expect(parseCpuList('0-3,8,10-11\n')).toEqual([0, 1, 2, 3, 8, 10, 11]);
  });

  test('supports strided ranges and ignores duplicates and junk', () => {
    expect(parseCpuList('0-6:2,2,x,')).toEqual([0, 2, 4, 6]);
  });

  test('an empty list (offline file with no CPUs) gives no CPUs', () => {
    expect(parseCpuList('\n')).toEqual([]);
  });
});

describe('parseCpuList on garbled lists', () => {
  test('a range of numbers past 2^53 ends instead of looping forever, and gives no CPUs', () => {
    expect(parseCpuList('99999999999999999999-99999999999999999999')).toEqual([]);
    expect(parseCpuList('9007199254740993-9007199254740999,1')).toEqual([1]);
  });

  test('a range beyond any kernel CPU count is cut at 65,536 CPUs', () => {
    expect(parseCpuList('0-4294967295')).toHaveLength(65_536);
  });
});
