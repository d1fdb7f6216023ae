import type { DiskInventory } from '../../protocol';
import { defineHostRule, type DiskWindow, type Verdict } from '../types';
import { DISK_CLASS_NAMES, disksOf, inventoryNameOf } from '../facts/disk-classes';
import { exceeds } from '../thresholds';
import { fmt, fmtPct, minutes, windowOf } from '../format';

type DiskClass = DiskInventory['class'];

/** dm and md devices sit on disks judged themselves; without an inventory their names say what they are. */
const STACKED = /^(dm-|md)\d/;

// aqu-sz alone means waiting only where few requests are served at once; NVMe serves thousands in parallel.
const QUEUE_JUDGED = new Set<DiskClass>(['hdd', 'ssd', 'virtual']);
// iostat(1): %util shows saturation only "for devices serving requests serially", not RAID or modern SSDs.
const UTIL_JUDGED = new Set<DiskClass>(['hdd']);

export const diskSaturated = defineHostRule({
  id: 'storage.disk-saturated',
  title: 'Disk saturated',
  category: 'storage',
  severities: ['warning'],
  defaults: {
    queueDepth: { value: 4, unit: 'requests', description: 'average queue size (aqu-sz) that raises it, on HDD, SATA/SAS SSD and virtual disks' },
    queueDepthClear: { value: 3, unit: 'requests', description: 'an open finding needs the queue below this to clear' },
    readAwaitMs: { value: 20, unit: 'ms', description: 'average read await (r_await) that raises it, on any disk' },
    readAwaitClearMs: { value: 15, unit: 'ms', description: 'an open finding needs read await below this to clear' },
    writeAwaitMs: { value: 50, unit: 'ms', description: 'average write await (w_await) that raises it, on any disk' },
    writeAwaitClearMs: { value: 40, unit: 'ms', description: 'an open finding needs write await below this to clear' },
    utilPct: { value: 90, unit: '%', description: 'average utilisation that raises it, on HDDs only' },
    utilClearPct: { value: 80, unit: '%', description: 'an open finding needs utilisation below this to clear' },
    minIops: { value: 1, unit: 'IOPS', description: 'awaits are judged only on a disk doing at least this many requests per second' },
  },
  openAfterMs: 0,
  needs: 'window',
  evaluate(facts, t, ctx) {
    const window = facts.window!;
    const inventory = disksOf(facts);
    const verdicts: Verdict[] = [];
    for (const disk of window.disks) {
      const diskClass = inventory.get(inventoryNameOf(disk.device))?.class ?? null;
      if (diskClass === 'other' || (diskClass === null && STACKED.test(disk.device))) continue;
      const open = ctx.isOpen(disk.device);
      const busyEnough = disk.iops >= t.minIops;
      const measures: Measure[] = [
        { name: 'read await', avg: disk.readAwaitMs.avg, unit: 'ms', raise: t.readAwaitMs, clear: t.readAwaitClearMs, judged: busyEnough },
        { name: 'write await', avg: disk.writeAwaitMs.avg, unit: 'ms', raise: t.writeAwaitMs, clear: t.writeAwaitClearMs, judged: busyEnough },
        { name: 'queue', avg: disk.queueDepth.avg, unit: 'requests', raise: t.queueDepth, clear: t.queueDepthClear, judged: diskClass !== null && QUEUE_JUDGED.has(diskClass) },
        { name: 'utilisation', avg: disk.utilPct.avg, unit: '%', raise: t.utilPct, clear: t.utilClearPct, judged: diskClass !== null && UTIL_JUDGED.has(diskClass) },
      ];
      const over = measures.filter((m) => m.judged && exceeds(m.avg, m.raise, m.clear, open));
      if (over.length === 0) continue;
      verdicts.push(verdictFor(disk, diskClass, over, measures.filter((m) => !over.includes(m)), windowOf(window), minutes(window.toMs - window.fromMs)));
    }
    return verdicts;
  },
});

interface Measure {
  name: string;
  avg: number;
  unit: 'ms' | 'requests' | '%';
  raise: number;
  clear: number;
  judged: boolean;
}

const show = (m: Measure, value: number) => (m.unit === '%' ? fmtPct(value) : `${fmt(value)} ${m.unit}`);

function verdictFor(disk: DiskWindow, diskClass: DiskClass | null, over: Measure[], rest: Measure[], window: { from: string; to: string }, span: string): Verdict {
  const className = diskClass ? DISK_CLASS_NAMES[diskClass] : 'class unknown';
  const overText = over.map((m) => `${m.name} averaged ${show(m, m.avg)} (above ${show(m, m.raise)})`).join(', ');
  const restText = [...rest.map((m) => `${m.name} ${show(m, m.avg)}`), `${fmt(disk.iops)} IOPS`].join(', ');
  return {
    subject: disk.device,
    severity: 'warning',
    value: Math.max(disk.readAwaitMs.avg, disk.writeAwaitMs.avg),
    message: `${disk.device} (${className}) was saturated over ${span}: ${overText}; ${restText}.`,
    remedy:
      `Find what keeps it busy: \`iostat -x 5 ${disk.device}\` and \`pidstat -d 5\` (or \`iotop -o\`). Move the models and data ` +
      'requests read to NVMe or a less loaded disk, move logs, checkpoints and batch jobs off it, and give the page ' +
      'cache enough memory to hold the hot data.' +
      (diskClass === 'virtual' ? " A virtual disk usually hits the provider's IOPS or throughput cap first: ask for a faster volume class or local NVMe." : ''),
    evidence: {
      values: [
        { label: 'disk class', value: className },
        { label: 'queue (aqu-sz, average)', value: disk.queueDepth.avg, unit: 'requests' },
        { label: 'queue (peak)', value: disk.queueDepth.max, unit: 'requests' },
        { label: 'read await (average)', value: disk.readAwaitMs.avg, unit: 'ms' },
        { label: 'read await (peak)', value: disk.readAwaitMs.max, unit: 'ms' },
        { label: 'write await (average)', value: disk.writeAwaitMs.avg, unit: 'ms' },
        { label: 'write await (peak)', value: disk.writeAwaitMs.max, unit: 'ms' },
        { label: 'utilisation (average)', value: disk.utilPct.avg, unit: '%' },
        { label: 'requests per second', value: disk.iops, unit: 'IOPS' },
      ],
      window,
      series: ['disk_queue_depth', 'disk_read_await', 'disk_write_await', 'disk_util'].map((metric) => ({ metric, key: disk.device })),
    },
  };
}
