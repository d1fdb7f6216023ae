import { describe, expect, test } from 'vitest';
import { isolatedRows } from '../../../components/charts/isolated-points';
import type { TimeRow } from '../../../components/charts/time-chart-config';

const rows = (values: (number | null | undefined)[]): TimeRow[] => values.map((v, i) => ({ t: i * 60_000, s0: v }));

describe('isolatedRows', () => {
  test('a value with no value on either side is isolated: a line through it draws nothing', () => {
    expect([...isolatedRows(rows([null, null, 54.2, null, null]), 's0')]).toEqual([2]);
  });

  test('a value at either end of the range with nothing beside it is isolated too', () => {
    expect([...isolatedRows(rows([7, null, null, 9]), 's0')]).toEqual([0, 3]);
    expect([...isolatedRows(rows([12]), 's0')]).toEqual([0]);
  });

  test('values with a neighbour are drawn as a line and are not isolated; a missing key counts as a gap', () => {
    expect([...isolatedRows(rows([1, 2, null, 3, undefined, 4, 5]), 's0')]).toEqual([3]);
    expect([...isolatedRows(rows([1, 2, 3]), 's0')]).toEqual([]);
    expect([...isolatedRows(rows([1, null, 3]), 's1')]).toEqual([]);
  });

  test('a zero is a value, not a gap', () => {
    expect([...isolatedRows(rows([0, null, 0, 0]), 's0')]).toEqual([0]);
  });
});
