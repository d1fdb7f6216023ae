import { describe, expect, test } from 'vitest';
import { cleanWindow, defaultsOf, hostFacts, ruleContext } from '../../../tests/support/findings-facts';
import { stealHigh } from './cpu.steal-high';

const t = defaultsOf(stealHigh.defaults);
const withSteal = (avg: number, perCpu: { cpu: number; avg: number }[] = []) =>
  hostFacts({ window: cleanWindow({ stealPct: { avg, max: avg * 1.5 }, perCpuStealPct: perCpu }) });

describe('cpu.steal-high', () => {
  test('a clean host raises nothing', () => {
    expect(stealHigh.evaluate(hostFacts(), t, ruleContext())).toEqual([]);
  });

  test('steal above 5 % over the window is a warning that names the vCPUs that lost most', () => {
    const [v] = stealHigh.evaluate(withSteal(7.2, [{ cpu: 3, avg: 12.5 }, { cpu: 2, avg: 11 }, { cpu: 6, avg: 4 }, { cpu: 0, avg: 1 }]), t, ruleContext());
    expect(v).toMatchObject({ severity: 'warning', value: 7.2 });
    expect(v!.message).toBe('CPU steal averaged 7.2 % over 5 min (peak 10.8 %); most from vCPU 3 (12.5 %), 2 (11 %), 6 (4 %).');
    expect(v!.evidence.series).toEqual([{ metric: 'cpu_steal' }, { metric: 'cpu_steal_per_cpu' }]);
    expect(v!.remedy).toMatch(/live-migrate/);
  });

  test('steal above 15 % is critical', () => {
    expect(stealHigh.evaluate(withSteal(15.1), t, ruleContext())[0]!.severity).toBe('critical');
  });

  test('exactly at the warning threshold does not raise', () => {
    expect(stealHigh.evaluate(withSteal(5), t, ruleContext())).toEqual([]);
  });

  test('hysteresis: an open finding stays open between the clear and raise thresholds, and clears below', () => {
    expect(stealHigh.evaluate(withSteal(4), t, ruleContext())).toEqual([]);
    expect(stealHigh.evaluate(withSteal(4), t, ruleContext(['']))).toHaveLength(1);
    expect(stealHigh.evaluate(withSteal(2.9), t, ruleContext(['']))).toEqual([]);
  });

  test('thresholds come from the caller (overrides)', () => {
    expect(stealHigh.evaluate(withSteal(3), { ...t, warningPct: 2 }, ruleContext())).toHaveLength(1);
  });

  test('a host without steal data raises nothing', () => {
    expect(stealHigh.evaluate(hostFacts({ window: cleanWindow({ stealPct: null }) }), t, ruleContext())).toEqual([]);
  });
});
