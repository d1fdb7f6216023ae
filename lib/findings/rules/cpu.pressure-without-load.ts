import type { EvidenceValue } from '../../protocol/findings';
import { defineHostRule, type HostWindow } from '../types';
import { exceeds } from '../thresholds';
import { fmtPct, minutes, windowOf } from '../format';

/** Steal or throttling below this explains no pressure: it is rounding noise in /proc/stat and cpu.stat. */
const NOTABLE_PCT = 1;

function mostThrottled(window: HostWindow) {
  const [worst] = [...window.cgroups].sort((a, b) => b.throttledPct.avg - a.throttledPct.avg);
  return worst && worst.throttledPct.avg >= NOTABLE_PCT ? worst : null;
}

export const pressureWithoutLoad = defineHostRule({
  id: 'cpu.pressure-without-load',
  title: 'CPU pressure on a host that is not busy',
  category: 'noisy-neighbours',
  severities: ['warning'],
  defaults: {
    pressurePct: { value: 20, unit: '%', description: 'average CPU pressure (PSI some avg10) over the window that raises the finding' },
    clearPressurePct: { value: 10, unit: '%', description: 'an open finding resolves once average CPU pressure falls below this' },
    busyBelowPct: { value: 50, unit: '%', description: 'the finding raises only while the host itself uses less than this share of its CPUs' },
    clearBusyPct: { value: 60, unit: '%', description: 'an open finding resolves once the host uses this share of its CPUs or more (its own load then explains the wait)' },
  },
  openAfterMs: 0,
  needs: 'window',
  evaluate(facts, t, ctx) {
    const window = facts.window!;
    const pressure = window.psiCpuSomePct;
    const busy = window.busyPct;
    if (!pressure || !busy) return [];
    const open = ctx.isOpen();
    if (!exceeds(pressure.avg, t.pressurePct, t.clearPressurePct, open)) return [];
    if (busy.avg >= (open ? Math.max(t.clearBusyPct, t.busyBelowPct) : t.busyBelowPct)) return [];

    const steal = window.stealPct && window.stealPct.avg >= NOTABLE_PCT ? window.stealPct : null;
    const throttled = mostThrottled(window);
    const seen = [
      steal ? `steal ${fmtPct(steal.avg)}` : null,
      throttled ? `cgroup ${throttled.path} throttled in ${fmtPct(throttled.throttledPct.avg)} of its periods` : null,
    ].filter((s) => s !== null);
    const seenText = seen.length ? `; in the same window: ${seen.join(', ')}` : '; no steal or cgroup throttling in the same window';
    const values: EvidenceValue[] = [
      { label: 'CPU pressure, some (window average)', value: pressure.avg, unit: '%' },
      { label: 'CPU pressure, some (window peak)', value: pressure.max, unit: '%' },
      { label: 'CPU busy (window average)', value: busy.avg, unit: '%' },
      { label: 'steal (window average)', value: window.stealPct?.avg ?? null, unit: '%' },
      ...(throttled ? [{ label: `throttled periods of ${throttled.path}`, value: throttled.throttledPct.avg, unit: '%' }] : []),
    ];
    return [
      {
        severity: 'warning',
        value: pressure.avg,
        message:
          `Tasks waited for a CPU ${fmtPct(pressure.avg)} of the time (PSI cpu some, peak ${fmtPct(pressure.max)}) while the host ` +
          `used only ${fmtPct(busy.avg)} of its CPUs over ${minutes(window.toMs - window.fromMs)}${seenText}.`,
        remedy: remedyFor(steal !== null, throttled?.path ?? null),
        evidence: {
          values,
          window: windowOf(window),
          series: [{ metric: 'psi_cpu' }, { metric: 'cpu_idle' }, { metric: 'cpu_steal' }, { metric: 'cgroup_throttled_pct' }],
        },
      },
    ];
  },
});

function remedyFor(steal: boolean, throttledPath: string | null): string {
  const first = throttledPath
    ? `The cgroup ${throttledPath} runs into its CPU quota: read it (cgroup v2: \`cat /sys/fs/cgroup${throttledPath === '/' ? '' : throttledPath}/cpu.max\`; ` +
      'docker inspect --format "{{.HostConfig.NanoCpus}}"; a pod\'s resources.limits.cpu) and raise it, or size the runtime\'s ' +
      'threads to the quota (OMP_NUM_THREADS, intra_op_parallelism_threads) so they stop queueing on it. '
    : steal
      ? 'The hypervisor runs another guest on this VM\'s cores (steal): ask the provider to live-migrate the VM or for ' +
        'dedicated vCPUs, and move latency-critical replicas to a quieter host meanwhile. '
      : '';
  return (
    first +
    'To find who has the CPU: `mpstat -P ALL 1 5` (%steal per vCPU; a hypervisor that does not report steal shows 0 there, ' +
    'and only this pressure gives the neighbour away); nr_throttled rising in the cgroup\'s cpu.stat (a quota); ' +
    '`taskset -cp <pid>` and the container\'s --cpuset-cpus (threads pinned to a few CPUs queue there while the rest idle); ' +
    'more runtime threads than usable CPUs (OMP_NUM_THREADS, intra-op threads), which queue in bursts. If none of these ' +
    'shows it, ask the provider whether the host is oversold: a neighbour the guest cannot see.'
  );
}
