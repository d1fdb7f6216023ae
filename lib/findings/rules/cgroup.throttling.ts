import { isUnavailable, type Inventory } from '../../protocol';
import { defineHostRule, type CgroupWindow, type Verdict } from '../types';
import { exceeds } from '../thresholds';
import { fmt, fmtPct, minutes, windowOf } from '../format';
import { RUNTIME_NAMES, describePool, intraOpPools, largestPool, type ThreadPool } from '../facts/thread-pools';
import { fittingThreads, fmtCpus } from '../facts/usable-cpus';

interface Resident {
  name: string;
  workers: number;
  pool: ThreadPool | null;
}

/** The watched services whose processes run in this group (their own group, else the host's), with their pools. */
function residentsOf(path: string, inventory: Inventory): Resident[] {
  const hostPath = isUnavailable(inventory.cgroup) ? null : inventory.cgroup.path;
  const byName = new Map<string, Resident>();
  for (const process of inventory.processes) {
    if ((process.cgroup?.path ?? hostPath) !== path) continue;
    const resident = byName.get(process.name) ?? { name: process.name, workers: 0, pool: null };
    resident.workers++;
    const pools = intraOpPools(process, inventory);
    resident.pool ??= pools && largestPool(pools.sized);
    byName.set(process.name, resident);
  }
  return [...byName.values()];
}

function rising(g: CgroupWindow, t: { warningPct: number; risingFactor: number }): boolean {
  const { throttledPctFirstHalf: first, throttledPctSecondHalf: second } = g;
  return first !== null && second !== null && second > t.warningPct && second >= first * t.risingFactor;
}

export const cgroupThrottling = defineHostRule({
  id: 'cgroup.throttling',
  title: 'Container throttled by its CPU quota',
  category: 'quota',
  severities: ['warning'],
  defaults: {
    warningPct: { value: 5, unit: '%', description: 'share of CFS periods throttled, on average over the window, above which it warns' },
    clearPct: { value: 2, unit: '%', description: 'an open finding resolves once the average falls below this' },
    risingFactor: { value: 2, unit: '×', description: 'also warns when the second half of the window is above warningPct and this many times the first' },
  },
  openAfterMs: 0,
  needs: 'window',
  evaluate(facts, t, ctx) {
    const window = facts.window!;
    const inventory = facts.inventory?.data ?? null;
    const verdicts: Verdict[] = [];
    for (const g of window.cgroups) {
      const sustained = exceeds(g.throttledPct.avg, t.warningPct, t.clearPct, ctx.isOpen(g.path));
      const isRising = rising(g, t);
      if (!sustained && !isRising) continue;
      const halves = g.throttledPctFirstHalf !== null && g.throttledPctSecondHalf !== null
        ? `; ${fmtPct(g.throttledPctFirstHalf)} in its first half, ${fmtPct(g.throttledPctSecondHalf)} in its second`
        : '';
      const quota = g.quotaCores === null ? 'no quota reported' : `a quota of ${fmtCpus(g.quotaCores)} cores`;
      const residents = inventory ? residentsOf(g.path, inventory) : [];
      const pools = residents.filter((r) => r.pool).map((r) => `${r.name} runs ${describePool(r.pool!)} (${RUNTIME_NAMES[r.pool!.runtime]}) × ${r.workers}`);
      const fits = g.quotaCores === null ? [] : residents.filter((r) => r.pool).map((r) => {
        const n = fittingThreads(g.quotaCores! / residents.length, r.workers);
        return `${r.name}: ${r.pool!.setting(n)}`;
      });
      const wanted = residents.reduce((sum, r) => sum + (r.pool ? r.pool.threads * r.workers : 0), 0);
      const raiseTo = g.quotaCores !== null && wanted > g.quotaCores ? wanted : g.quotaCores !== null ? Math.ceil(g.quotaCores) + 1 : null;
      verdicts.push({
        subject: g.path,
        severity: 'warning',
        value: g.throttledPct.avg,
        message:
          `cgroup ${g.path} was throttled in ${fmtPct(g.throttledPct.avg)} of its CFS periods over ${minutes(window.toMs - window.fromMs)}` +
          `${halves} (${fmt(g.throttledMsPerS)} ms/s stalled), with ${quota} and ${fmtCpus(g.usageCores)} in use` +
          `${pools.length ? `; ${pools.join(', ')}` : ''}.`,
        remedy:
          'CFS throttling stalls every thread of the group for the rest of the 100 ms period once the quota is spent. ' +
          `Raise the quota${raiseTo !== null ? ` (e.g. to ${fmtCpus(raiseTo)} cores)` : ''}: \`docker update --cpus=${raiseTo !== null ? fmtCpus(raiseTo) : 'N'} CONTAINER\`, ` +
          `or Kubernetes \`resources.limits.cpu: "${raiseTo !== null ? fmtCpus(raiseTo) : 'N'}"\` — or lower the threads to fit it` +
          `${fits.length ? ` (${fits.join('; ')})` : ' (OMP_NUM_THREADS and the other pools at the quota ÷ workers)'}.`,
        evidence: {
          values: [
            { label: 'throttled periods (window average)', value: g.throttledPct.avg, unit: '%' },
            { label: 'throttled periods (window peak)', value: g.throttledPct.max, unit: '%' },
            ...(g.throttledPctFirstHalf !== null ? [{ label: 'throttled periods (first half)', value: g.throttledPctFirstHalf, unit: '%' }] : []),
            ...(g.throttledPctSecondHalf !== null ? [{ label: 'throttled periods (second half)', value: g.throttledPctSecondHalf, unit: '%' }] : []),
            { label: 'throttled time', value: g.throttledMsPerS, unit: 'ms/s' },
            { label: 'quota', value: g.quotaCores, unit: 'cores' },
            { label: 'CPU used (window average)', value: g.usageCores, unit: 'cores' },
          ],
          window: windowOf(window),
          series: [{ metric: 'cgroup_throttled_pct', key: g.path }, { metric: 'cgroup_throttled_ms', key: g.path }],
        },
      });
    }
    return verdicts;
  },
});
