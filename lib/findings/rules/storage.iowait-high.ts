import type { EvidenceSeries, EvidenceValue } from '../../protocol/findings';
import { defineHostRule, type DiskWindow } from '../types';
import { exceeds } from '../thresholds';
import { fmt, fmtPct, minutes, windowOf } from '../format';

/** The disk with the most requests in flight (aqu-sz counts them on any device type), then the highest utilisation. */
export function busiestDisk(disks: readonly DiskWindow[]): DiskWindow | null {
  const busy = disks.filter((d) => d.queueDepth.avg > 0 || d.utilPct.avg > 0);
  busy.sort((a, b) => b.queueDepth.avg - a.queueDepth.avg || b.utilPct.avg - a.utilPct.avg || a.device.localeCompare(b.device));
  return busy[0] ?? null;
}

export const iowaitHigh = defineHostRule({
  id: 'storage.iowait-high',
  title: 'CPUs idle waiting on I/O',
  category: 'storage',
  severities: ['warning', 'critical'],
  defaults: {
    warningPct: { value: 10, unit: '%', description: 'average iowait over the window that raises a warning' },
    criticalPct: { value: 25, unit: '%', description: 'average iowait that makes it critical' },
    clearPct: { value: 7, unit: '%', description: 'an open finding resolves once average iowait falls below this' },
  },
  openAfterMs: 0,
  needs: 'window',
  evaluate(facts, t, ctx) {
    const window = facts.window!;
    const iowait = window.iowaitPct;
    if (!iowait || !exceeds(iowait.avg, t.warningPct, t.clearPct, ctx.isOpen())) return [];
    const disk = busiestDisk(window.disks);
    const psi = window.psiIoSomePct;
    const diskText = disk ? `; busiest disk ${disk.device} (queue ${fmt(disk.queueDepth.avg)}, read await ${fmt(disk.readAwaitMs.avg)} ms, utilisation ${fmtPct(disk.utilPct.avg)})` : '';
    const psiText = psi ? `; PSI io some ${fmtPct(psi.avg)}` : '';
    const values: EvidenceValue[] = [
      { label: 'iowait (window average)', value: iowait.avg, unit: '%' },
      { label: 'iowait (window peak)', value: iowait.max, unit: '%' },
    ];
    const series: EvidenceSeries[] = [{ metric: 'cpu_iowait' }, { metric: 'psi_io' }];
    if (psi) values.push({ label: 'PSI io some (window average)', value: psi.avg, unit: '%' });
    if (disk) {
      values.push(
        { label: `queue of ${disk.device} (aqu-sz, average)`, value: disk.queueDepth.avg, unit: 'requests' },
        { label: `utilisation of ${disk.device} (average)`, value: disk.utilPct.avg, unit: '%' },
      );
      series.push({ metric: 'disk_queue_depth', key: disk.device });
    }
    return [
      {
        severity: iowait.avg > t.criticalPct ? 'critical' : 'warning',
        value: iowait.avg,
        message: `iowait averaged ${fmtPct(iowait.avg)} of CPU time over ${minutes(window.toMs - window.fromMs)} (peak ${fmtPct(iowait.max)})${diskText}${psiText}.`,
        remedy:
          `Find who waits and on what: \`iostat -x 5\`${disk ? ` (watch ${disk.device})` : ''}, \`pidstat -d 5\`, and the tasks in D state ` +
          "(`ps -eo state,pid,comm | awk '$1==\"D\"'`). Move the models and data the inference path reads to NVMe, " +
          'load models into memory at start-up instead of per request, give the page cache room for the hot data, ' +
          'and move logs, checkpoints and batch jobs to another disk.',
        evidence: { values, window: windowOf(window), series },
      },
    ];
  },
});
