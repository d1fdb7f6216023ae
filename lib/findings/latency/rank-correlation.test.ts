import { describe, expect, test } from 'vitest';
import { median, ranks, spearman } from './rank-correlation';

describe('rank correlation', () => {
  test('ties share their average rank', () => {
    expect(ranks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
  });

  test('Spearman is 1 for any increasing relation, −1 for a decreasing one', () => {
    const xs = [1, 2, 3, 4, 5, 6];
    expect(spearman(xs, xs.map((x) => x ** 3))).toBeCloseTo(1);
    expect(spearman(xs, xs.map((x) => -Math.exp(x)))).toBeCloseTo(-1);
  });

  test('matches the textbook value with ties (scipy.stats.spearmanr)', () => {
    // scipy.stats.spearmanr([1, 2, 2, 3, 5], [2, 1, 4, 4, 6]).statistic = 0.7631578947368421
    expect(spearman([1, 2, 2, 3, 5], [2, 1, 4, 4, 6])).toBeCloseTo(0.7631578947368421, 12);
  });

  test('is undefined for a constant side or fewer than two pairs', () => {
    expect(spearman([1, 1, 1], [1, 2, 3])).toBeNull();
    expect(spearman([1], [2])).toBeNull();
  });

  test('median of odd, even and empty lists', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });
});
