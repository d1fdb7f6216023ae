import { describe, expect, test } from 'vitest';
import { parseCpuList } from '../../../lib/protocol/cpu-list';

describe('parseCpuList (server side)', () => {
  test('reads ranges, single CPUs and strides into sorted distinct CPUs', () => {
    expect(parseCpuList('8,0-3,10-11')).toEqual([0, 1, 2, 3, 8, 10, 11]);
    expect(parseCpuList('0-7:2,2')).toEqual([0, 2, 4, 6]);
    expect(parseCpuList('0-3\n')).toEqual([0, 1, 2, 3]);
  });

  test('skips parts it cannot read and stops at CPU 65535, so a garbled report costs nothing', () => {
    expect(parseCpuList('')).toEqual([]);
    expect(parseCpuList('a-b,3,-1')).toEqual([3]);
    expect(parseCpuList('0-99999999999999999999')).toHaveLength(65_536);
    expect(parseCpuList('70000-70010')).toEqual([]);
  });
});
