import { describe, expect, test } from 'vitest';
import type { CgroupWindow } from '../types';
import { cleanInventory, cleanWindow, defaultsOf, hostFacts, ruleContext, watchedProcess } from '../../../tests/support/findings-facts';
import { cgroupThrottling } from './cgroup.throttling';

const t = defaultsOf(cgroupThrottling.defaults);
const PATH = '/system.slice/docker-3f2a.scope';
const group = (avg: number, first: number | null = avg, second: number | null = avg, patch: Partial<CgroupWindow> = {}): CgroupWindow => ({
  path: PATH, quotaCores: 2, usageCores: 1.9, throttledPct: { avg, max: avg * 2 }, throttledMsPerS: avg * 2,
  throttledPctFirstHalf: first, throttledPctSecondHalf: second, ...patch,
});
const inContainer = watchedProcess({ cgroup: { path: PATH, version: 2, quotaCores: 2, cpusetCpus: null, effectiveCpus: 2 } });
const judge = (groups: CgroupWindow[], open: string[] = [], inventory = cleanInventory({ processes: [inContainer] })) =>
  cgroupThrottling.evaluate(hostFacts({ inventory, window: cleanWindow({ cgroups: groups }) }), t, ruleContext(open));

describe('cgroup.throttling', () => {
  test('a clean host raises nothing', () => {
    expect(cgroupThrottling.evaluate(hostFacts(), t, ruleContext())).toEqual([]);
  });

  test('sustained throttling warns with the group as subject, the pool inside it and the thread count that fits', () => {
    const [v] = judge([group(23, 20, 26)]);
    expect(v).toMatchObject({ subject: PATH, severity: 'warning', value: 23 });
    expect(v!.message).toBe(
      `cgroup ${PATH} was throttled in 23 % of its CFS periods over 5 min; 20 % in its first half, 26 % in its second (46 ms/s stalled), ` +
        'with a quota of 2 cores and 1.9 in use; serve.py runs OMP_NUM_THREADS=8 (PyTorch) × 1.',
    );
    expect(v!.remedy).toContain('`docker update --cpus=8 CONTAINER`');
    expect(v!.remedy).toContain('resources.limits.cpu: "8"');
    expect(v!.remedy).toContain('serve.py: torch.set_num_threads(2) (or OMP_NUM_THREADS=2)');
    expect(v!.evidence.series).toEqual([{ metric: 'cgroup_throttled_pct', key: PATH }, { metric: 'cgroup_throttled_ms', key: PATH }]);
    expect(v!.evidence.window).toBeDefined();
  });

  test('rising: a second half above the threshold and twice the first warns even with a low average', () => {
    expect(judge([group(3.5, 1, 6)])).toHaveLength(1);
    expect(judge([group(4, 3, 5)])).toEqual([]);
    expect(judge([group(3, 0, 4.9)])).toEqual([]);
  });

  test('exactly at the threshold does not raise', () => {
    expect(judge([group(5, 5, 5)])).toEqual([]);
    expect(judge([group(5.1, 5, 5.2)])).toHaveLength(1);
  });

  test('hysteresis: open, it stays open above 2 % and clears below', () => {
    expect(judge([group(3)])).toEqual([]);
    expect(judge([group(3)], [PATH])).toHaveLength(1);
    expect(judge([group(1.9)], [PATH])).toEqual([]);
  });

  test('without an inventory or a known pool it still warns, with the generic remedy', () => {
    const [v] = cgroupThrottling.evaluate(hostFacts({ inventory: null, window: cleanWindow({ cgroups: [group(10)] }) }), t, ruleContext());
    expect(v!.message).toMatch(/with a quota of 2 cores and 1\.9 in use\.$/);
    expect(v!.remedy).toContain('`docker update --cpus=3 CONTAINER`');
    expect(v!.remedy).toContain('OMP_NUM_THREADS and the other pools at the quota ÷ workers');
  });

  test('each group is judged on its own; unthrottled ones and other groups\' processes are not named', () => {
    const other = { ...group(0.2), path: '/' };
    const verdicts = judge([other, group(12)]);
    expect(verdicts.map((v) => v.subject)).toEqual([PATH]);
  });
});
