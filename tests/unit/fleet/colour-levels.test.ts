import { describe, expect, test } from 'vitest';
import { levelSeverity } from '../../../components/format';
import { COLOUR_SOURCES, colourLevelsResolver } from '../../../lib/fleet/colour-levels';
import { findRule } from '../../../lib/findings/registry';
import type { ThresholdOverride } from '../../../lib/protocol/findings';

const host = { hostId: 7, region: 'oslo', labels: { gpu: 'a10' } };

function override(o: Partial<ThresholdOverride> & Pick<ThresholdOverride, 'ruleId' | 'scope' | 'selector'>): ThresholdOverride {
  return { id: 1, thresholds: {}, disabled: false, updatedAt: '2026-12-01T00:00:00.000Z', ...o };
}

describe('colour levels', () => {
  test('without overrides they are the findings rules’ default thresholds', () => {
    expect(colourLevelsResolver([])(host)).toEqual({
      stealPct: { warn: 5, crit: 15 },
      iowaitPct: { warn: 10, crit: 25 },
      diskQueueDepth: { warn: 4, crit: null },
    });
  });

  test('each coloured value names a registered rule and thresholds that rule has', () => {
    for (const { rule, warn, crit } of Object.values(COLOUR_SOURCES)) {
      expect(findRule(rule.id)).toBe(rule);
      expect(Object.keys(rule.defaults)).toContain(warn);
      if (crit !== null) expect(Object.keys(rule.defaults)).toContain(crit);
    }
  });

  test('overrides apply as the engine resolves them: fleet, then region, labels, host; a disabled rule colours nothing', () => {
    const overrides = [
      override({ id: 1, ruleId: 'cpu.steal-high', scope: 'fleet', selector: '', thresholds: { warningPct: 8, criticalPct: 30 } }),
      override({ id: 2, ruleId: 'cpu.steal-high', scope: 'region', selector: 'oslo', thresholds: { warningPct: 2 } }),
      override({ id: 3, ruleId: 'storage.disk-saturated', scope: 'labels', selector: '{"gpu":"a10"}', thresholds: { queueDepth: 16 } }),
      override({ id: 4, ruleId: 'storage.iowait-high', scope: 'host', selector: '7', disabled: true }),
    ];
    const levelsOf = colourLevelsResolver(overrides);
    expect(levelsOf(host)).toEqual({
      stealPct: { warn: 2, crit: 30 },
      iowaitPct: { warn: null, crit: null },
      diskQueueDepth: { warn: 16, crit: null },
    });
    expect(levelsOf({ hostId: 8, region: 'frankfurt', labels: {} })).toEqual({
      stealPct: { warn: 8, crit: 30 },
      iowaitPct: { warn: 10, crit: 25 },
      diskQueueDepth: { warn: 4, crit: null },
    });
  });
});

describe('levelSeverity', () => {
  const steal = { warn: 5, crit: 15 };
  test.each([
    [null, 'ok'],
    [3.5, 'ok'],
    [5, 'ok'],
    [5.1, 'warn'],
    [15, 'warn'],
    [15.1, 'bad'],
  ] as const)('steal %s colours %s, strictly above a level as the rule raises', (value, expected) => {
    expect(levelSeverity(value, steal)).toBe(expected);
  });

  test('a rule that only warns never colours critical, and a disabled one never colours', () => {
    expect(levelSeverity(100, { warn: 4, crit: null })).toBe('warn');
    expect(levelSeverity(100, { warn: null, crit: null })).toBe('ok');
  });
});
