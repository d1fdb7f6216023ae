import { defineHostRule } from '../types';
import { exceeds } from '../thresholds';
import { fmtPct, minutes, windowOf } from '../format';

const WORST_CPUS_NAMED = 3;

export const stealHigh = defineHostRule({
  id: 'cpu.steal-high',
  title: 'Noisy neighbour: CPU steal',
  category: 'noisy-neighbours',
  severities: ['warning', 'critical'],
  defaults: {
    warningPct: { value: 5, unit: '%', description: 'average steal over the window that raises a warning' },
    criticalPct: { value: 15, unit: '%', description: 'average steal over the window that makes it critical' },
    clearPct: { value: 3, unit: '%', description: 'an open finding resolves once average steal falls below this' },
  },
  openAfterMs: 0,
  needs: 'window',
  evaluate(facts, t, ctx) {
    const window = facts.window!;
    const steal = window.stealPct;
    if (!steal || !exceeds(steal.avg, t.warningPct, t.clearPct, ctx.isOpen())) return [];
    const severity = steal.avg > t.criticalPct ? 'critical' : 'warning';
    const worst = window.perCpuStealPct.slice(0, WORST_CPUS_NAMED).filter((c) => c.avg > 0);
    const worstText = worst.length ? `; most from vCPU ${worst.map((c) => `${c.cpu} (${fmtPct(c.avg)})`).join(', ')}` : '';
    return [
      {
        severity,
        value: steal.avg,
        message: `CPU steal averaged ${fmtPct(steal.avg)} over ${minutes(window.toMs - window.fromMs)} (peak ${fmtPct(steal.max)})${worstText}.`,
        remedy:
          'Another guest on the same physical host is taking CPU time this VM was promised. Ask the provider to ' +
          'live-migrate the VM or for dedicated (pinned, not oversold) vCPUs, and move latency-critical replicas ' +
          'to a quieter host meanwhile. Steal happens outside the guest: thread settings and pinning inside it do not help.',
        evidence: {
          values: [
            { label: 'steal (window average)', value: steal.avg, unit: '%' },
            { label: 'steal (window peak)', value: steal.max, unit: '%' },
            ...worst.map((c) => ({ label: `steal on vCPU ${c.cpu}`, value: c.avg, unit: '%' })),
          ],
          window: windowOf(window),
          series: [{ metric: 'cpu_steal' }, { metric: 'cpu_steal_per_cpu' }],
        },
      },
    ];
  },
});
