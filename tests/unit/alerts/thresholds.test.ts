import { describe, expect, test } from 'vitest';
import { burnRate, effectiveThresholds, judge } from '../../../lib/alerts/thresholds';

const steal = { threshold: 10, clearThreshold: 5, relative: { factor: 3, minValue: 5, baselineMs: 86_400_000 } };

describe('effective thresholds', () => {
  test('without a relative condition or a baseline, the absolute thresholds apply', () => {
    expect(effectiveThresholds({ threshold: 10, clearThreshold: 5 }, 1)).toMatchObject({ threshold: 10, clearThreshold: 5, relative: false });
    expect(effectiveThresholds(steal, null)).toMatchObject({ threshold: 10, clearThreshold: 5, relative: false });
  });

  test('a quiet host (median 0.5 %) alerts above the 5 % floor, and clears at half of it', () => {
    expect(effectiveThresholds(steal, 0.5)).toEqual({ threshold: 5, clearThreshold: 2.5, baseline: 0.5, relative: true });
  });

  test('a host with a 2.5 % median alerts above 3 × 2.5 = 7.5 %', () => {
    expect(effectiveThresholds(steal, 2.5)).toMatchObject({ threshold: 7.5, clearThreshold: 3.75, relative: true });
  });

  test('a host whose own median is high still alerts at the absolute 10 %', () => {
    expect(effectiveThresholds(steal, 4)).toEqual({ threshold: 10, clearThreshold: 5, baseline: 4, relative: false });
  });

  test('judge: above the threshold breaches, at or below the clear threshold clears, between does neither', () => {
    const t = { threshold: 10, clearThreshold: 5 };
    expect(judge(10.1, t)).toEqual({ breaching: true, clear: false });
    expect(judge(10, t)).toEqual({ breaching: false, clear: false });
    expect(judge(7, t)).toEqual({ breaching: false, clear: false });
    expect(judge(5, t)).toEqual({ breaching: false, clear: true });
    expect(judge(null, t)).toEqual({ breaching: false, clear: true });
  });
});

describe('burn rate', () => {
  test('is the bad fraction over the error budget', () => {
    expect(burnRate(1000, 10, 0.99)).toBeCloseTo(1);
    expect(burnRate(1000, 144, 0.99)).toBeCloseTo(14.4);
    expect(burnRate(0, 0, 0.99)).toBe(0);
  });
});
