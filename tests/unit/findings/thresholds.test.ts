import { describe, expect, test } from 'vitest';
import { checkOverride, resolveThresholds } from '../../../lib/findings/thresholds';
import { stealHigh } from '../../../lib/findings/rules/cpu.steal-high';
import type { ThresholdOverride } from '../../../lib/protocol/findings';

let nextId = 1;
const override = (patch: Partial<ThresholdOverride>): ThresholdOverride => ({
  id: nextId++, ruleId: 'cpu.steal-high', scope: 'fleet', selector: '', thresholds: {}, disabled: false, updatedAt: '', ...patch,
});
const host = { hostId: 7, region: 'oslo', labels: { service: 'ranker', tier: 'gpu' } };

describe('resolveThresholds', () => {
  test('without overrides a rule judges by its defaults', () => {
    expect(resolveThresholds(stealHigh, [], host)).toEqual({ values: { warningPct: 5, criticalPct: 15, clearPct: 3 }, disabled: false });
  });

  test('the most specific override wins: host over labels over region over fleet, each replacing only what it sets', () => {
    const overrides = [
      override({ scope: 'host', selector: '7', thresholds: { warningPct: 9 } }),
      override({ scope: 'labels', selector: JSON.stringify({ service: 'ranker' }), thresholds: { warningPct: 8, criticalPct: 30 } }),
      override({ scope: 'region', selector: 'oslo', thresholds: { warningPct: 7, clearPct: 1 } }),
      override({ scope: 'fleet', thresholds: { warningPct: 6 } }),
    ];
    expect(resolveThresholds(stealHigh, overrides, host).values).toEqual({ warningPct: 9, criticalPct: 30, clearPct: 1 });
  });

  test('a selector with more labels is more specific than one with fewer', () => {
    const overrides = [
      override({ scope: 'labels', selector: JSON.stringify({ service: 'ranker', tier: 'gpu' }), thresholds: { warningPct: 11 } }),
      override({ scope: 'labels', selector: JSON.stringify({ tier: 'gpu' }), thresholds: { warningPct: 10 } }),
    ];
    expect(resolveThresholds(stealHigh, overrides, host).values.warningPct).toBe(11);
  });

  test('overrides of other hosts, regions, label values and rules do not apply', () => {
    const overrides = [
      override({ scope: 'host', selector: '8', thresholds: { warningPct: 1 } }),
      override({ scope: 'region', selector: 'frankfurt', thresholds: { warningPct: 2 } }),
      override({ scope: 'labels', selector: JSON.stringify({ service: 'search' }), thresholds: { warningPct: 3 } }),
      override({ ruleId: 'cpu.avx2-missing', thresholds: { warningPct: 4 } }),
    ];
    expect(resolveThresholds(stealHigh, overrides, host).values.warningPct).toBe(5);
  });

  test('disabled fleet-wide, re-enabled for one host', () => {
    const overrides = [override({ scope: 'fleet', disabled: true }), override({ scope: 'host', selector: '7', disabled: false })];
    expect(resolveThresholds(stealHigh, overrides, host).disabled).toBe(false);
    expect(resolveThresholds(stealHigh, overrides, { ...host, hostId: 8 }).disabled).toBe(true);
  });
});

describe('checkOverride', () => {
  test('refuses an unknown rule and thresholds the rule does not have, naming them', () => {
    expect(() => checkOverride([stealHigh], { ruleId: 'cpu.nope', thresholds: {} })).toThrow(/unknown rule cpu.nope/);
    expect(() => checkOverride([stealHigh], { ruleId: 'cpu.steal-high', thresholds: { warnPct: 1 } })).toThrow(
      'rule cpu.steal-high has no threshold warnPct (it has: warningPct, criticalPct, clearPct)',
    );
    expect(checkOverride([stealHigh], { ruleId: 'cpu.steal-high', thresholds: { clearPct: 2 } })).toBe(stealHigh);
  });
});
