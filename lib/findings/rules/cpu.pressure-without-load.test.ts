import { describe, expect, test } from 'vitest';
import { cleanWindow, defaultsOf, hostFacts, ruleContext } from '../../../tests/support/findings-facts';
import type { CgroupWindow, HostWindow } from '../types';
import { pressureWithoutLoad } from './cpu.pressure-without-load';

const t = defaultsOf(pressureWithoutLoad.defaults);
const withPressure = (psi: number, busy: number, patch: Partial<HostWindow> = {}) =>
  hostFacts({ window: cleanWindow({ psiCpuSomePct: { avg: psi, max: psi * 1.5 }, busyPct: { avg: busy, max: busy * 1.2 }, ...patch }) });
const throttledGroup = (path: string, pct: number): CgroupWindow => ({
  path,
  quotaCores: 2,
  usageCores: 1.9,
  throttledPct: { avg: pct, max: pct * 1.5 },
  throttledMsPerS: 120,
  throttledPctFirstHalf: pct,
  throttledPctSecondHalf: pct,
});
const judge = (facts: ReturnType<typeof hostFacts>, open: string[] = []) => pressureWithoutLoad.evaluate(facts, t, ruleContext(open));

describe('cpu.pressure-without-load', () => {
  test('a clean host raises nothing', () => {
    expect(judge(hostFacts())).toEqual([]);
  });

  test('pressure above 20 % on a host under 50 % busy is a warning with both numbers, saying no steal or throttling was seen', () => {
    const [v] = judge(withPressure(34, 22));
    expect(v).toMatchObject({ severity: 'warning', value: 34 });
    expect(v!.message).toBe(
      'Tasks waited for a CPU 34 % of the time (PSI cpu some, peak 51 %) while the host used only 22 % of its CPUs over 5 min; ' +
        'no steal or cgroup throttling in the same window.',
    );
    expect(v!.remedy).toMatch(/mpstat -P ALL 1 5/);
    expect(v!.remedy).toMatch(/oversold/);
    expect(v!.evidence.series).toContainEqual({ metric: 'psi_cpu' });
  });

  test('steal and the most throttled cgroup seen in the same window are named, and the remedy starts with them', () => {
    const facts = withPressure(30, 25, {
      stealPct: { avg: 6.5, max: 9 },
      cgroups: [throttledGroup('/system.slice/other.service', 3), throttledGroup('/kubepods/pod1', 41)],
    });
    const [v] = judge(facts);
    expect(v!.message).toMatch(/; in the same window: steal 6\.5 %, cgroup \/kubepods\/pod1 throttled in 41 % of its periods\.$/);
    expect(v!.remedy).toMatch(/^The cgroup \/kubepods\/pod1 runs into its CPU quota: .*\/sys\/fs\/cgroup\/kubepods\/pod1\/cpu\.max/);
    expect(v!.evidence.values).toContainEqual({ label: 'throttled periods of /kubepods/pod1', value: 41, unit: '%' });
  });

  test('steal alone leads the remedy to the provider', () => {
    expect(judge(withPressure(30, 25, { stealPct: { avg: 4, max: 6 } }))[0]!.remedy).toMatch(/^The hypervisor runs another guest/);
  });

  test('steal and throttling under 1 % are noise and are not named', () => {
    const [v] = judge(withPressure(30, 25, { stealPct: { avg: 0.4, max: 1 }, cgroups: [throttledGroup('/a', 0.5)] }));
    expect(v!.message).toMatch(/no steal or cgroup throttling in the same window\.$/);
  });

  test('a busy host explains its own pressure: nothing at or above 50 % busy', () => {
    expect(judge(withPressure(60, 50))).toEqual([]);
    expect(judge(withPressure(60, 49.9))).toHaveLength(1);
  });

  test('exactly at the pressure threshold does not raise', () => {
    expect(judge(withPressure(20, 10))).toEqual([]);
    expect(judge(withPressure(20.1, 10))).toHaveLength(1);
  });

  test('hysteresis: an open finding stays open down to 10 % pressure and up to 60 % busy', () => {
    expect(judge(withPressure(15, 10))).toEqual([]);
    expect(judge(withPressure(15, 10), [''])).toHaveLength(1);
    expect(judge(withPressure(9.9, 10), [''])).toEqual([]);
    expect(judge(withPressure(30, 55))).toEqual([]);
    expect(judge(withPressure(30, 55), [''])).toHaveLength(1);
    expect(judge(withPressure(30, 60), [''])).toEqual([]);
  });

  test('thresholds come from the caller (overrides)', () => {
    expect(pressureWithoutLoad.evaluate(withPressure(12, 30), { ...t, pressurePct: 10 }, ruleContext())).toHaveLength(1);
    expect(pressureWithoutLoad.evaluate(withPressure(30, 55), { ...t, busyBelowPct: 70 }, ruleContext())).toHaveLength(1);
  });

  test('without PSI (or without CPU times) the rule says nothing', () => {
    expect(judge(withPressure(40, 10, { psiCpuSomePct: null }))).toEqual([]);
    expect(judge(withPressure(40, 10, { busyPct: null }))).toEqual([]);
  });
});
