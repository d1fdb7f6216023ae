import { describe, expect, test } from 'vitest';
import type { DiskInventory } from '../../protocol';
import type { DiskWindow } from '../types';
import { cleanInventory, cleanWindow, defaultsOf, diskWindow, hostFacts, nvmeDisk, ruleContext } from '../../../tests/support/findings-facts';
import { diskSaturated } from './storage.disk-saturated';

const t = defaultsOf(diskSaturated.defaults);
const stat = (avg: number) => ({ avg, max: avg * 2 });
const INVENTORY: DiskInventory[] = [
  nvmeDisk(),
  nvmeDisk({ device: 'sda', class: 'hdd', model: 'ST4000NM0035', rotational: true, hwQueues: 1 }),
  nvmeDisk({ device: 'sdb', class: 'ssd', model: 'Samsung SSD 860 EVO', hwQueues: 1 }),
  nvmeDisk({ device: 'vda', class: 'virtual', model: null, rotational: true, hwQueues: 2 }),
  nvmeDisk({ device: 'dm-0', class: 'other', model: null, hwQueues: null }),
];
const IDLE = { queueDepth: stat(0.2), readAwaitMs: stat(4), writeAwaitMs: stat(2), utilPct: stat(10), iops: 50 };
const disk = (device: string, patch: Partial<DiskWindow> = {}) => diskWindow({ device, ...IDLE, ...patch });
const withDisks = (disks: DiskWindow[], inventory: DiskInventory[] | null = INVENTORY) =>
  hostFacts({ window: cleanWindow({ disks }), inventory: inventory && cleanInventory({ disks: inventory }) });
const judge = (disks: DiskWindow[], open: string[] = [], inventory: DiskInventory[] | null = INVENTORY) =>
  diskSaturated.evaluate(withDisks(disks, inventory), t, ruleContext(open));

describe('storage.disk-saturated', () => {
  test('a clean host raises nothing', () => {
    expect(diskSaturated.evaluate(hostFacts(), t, ruleContext())).toEqual([]);
  });

  test('an HDD with a deep queue, slow reads and full utilisation is a warning about that device', () => {
    const [v] = judge([disk('sda', { queueDepth: stat(6.2), readAwaitMs: stat(35.24), utilPct: stat(97), iops: 140 })]);
    expect(v).toMatchObject({ subject: 'sda', severity: 'warning', value: 35.24 });
    expect(v!.message).toBe(
      'sda (HDD) was saturated over 5 min: read await averaged 35.2 ms (above 20 ms), queue averaged 6.2 requests (above 4 requests), ' +
        'utilisation averaged 97 % (above 90 %); write await 2 ms, 140 IOPS.',
    );
    expect(v!.remedy).toContain('`iostat -x 5 sda`');
    expect(v!.evidence.series).toEqual([
      { metric: 'disk_queue_depth', key: 'sda' },
      { metric: 'disk_read_await', key: 'sda' },
      { metric: 'disk_write_await', key: 'sda' },
      { metric: 'disk_util', key: 'sda' },
    ]);
    expect(v!.evidence.window).toBeDefined();
  });

  test('each threshold raises it alone, just above it and not at it', () => {
    for (const [patch, atLimit] of [
      [{ readAwaitMs: stat(20.1) }, { readAwaitMs: stat(20) }],
      [{ writeAwaitMs: stat(50.1) }, { writeAwaitMs: stat(50) }],
      [{ queueDepth: stat(4.1) }, { queueDepth: stat(4) }],
      [{ utilPct: stat(90.1) }, { utilPct: stat(90) }],
    ] as const) {
      expect(judge([disk('sda', patch)])).toHaveLength(1);
      expect(judge([disk('sda', atLimit)])).toEqual([]);
    }
  });

  test('utilisation alone is judged only on an HDD: SSDs, NVMe and virtual disks serve requests in parallel', () => {
    const full = { utilPct: stat(100) };
    expect(judge([disk('sdb', full), disk('nvme0n1', full), disk('vda', full)])).toEqual([]);
  });

  test('a queue of 4 is light for NVMe: there only the awaits judge', () => {
    expect(judge([disk('nvme0n1', { queueDepth: stat(12) })])).toEqual([]);
    expect(judge([disk('nvme0n1', { queueDepth: stat(12), readAwaitMs: stat(25) })])[0]!.message).toMatch(/^nvme0n1 \(NVMe\) was saturated over 5 min: read await averaged 25 ms/);
  });

  test('a SATA SSD and a virtual disk are judged on their queue; the virtual one is told about provider caps', () => {
    expect(judge([disk('sdb', { queueDepth: stat(5) })])).toHaveLength(1);
    const [v] = judge([disk('vda', { queueDepth: stat(5) })]);
    expect(v!.message).toMatch(/^vda \(virtual disk\)/);
    expect(v!.remedy).toContain("provider's IOPS or throughput cap");
  });

  test('awaits of a nearly idle disk (a spin-up, one slow flush) are not judged', () => {
    expect(judge([disk('sda', { readAwaitMs: stat(400), iops: 0.5 })])).toEqual([]);
    expect(judge([disk('sda', { readAwaitMs: stat(400), iops: 1 })])).toHaveLength(1);
  });

  test('a stuck HDD (no completions, a growing queue) is still judged on its queue', () => {
    expect(judge([disk('sda', { queueDepth: stat(8), iops: 0 })])).toHaveLength(1);
  });

  test('stacked dm/md devices are skipped: the disks beneath them are judged', () => {
    const slow = { readAwaitMs: stat(80), queueDepth: stat(9) };
    expect(judge([disk('dm-0', slow), disk('md0', slow)])).toEqual([]);
  });

  test('without an inventory only the awaits judge, and the class is said to be unknown', () => {
    expect(judge([disk('sda', { queueDepth: stat(9), utilPct: stat(100) })], [], null)).toEqual([]);
    expect(judge([disk('sda', { writeAwaitMs: stat(70) })], [], null)[0]!.message).toMatch(/^sda \(class unknown\) was saturated/);
  });

  test('a diskstats name with "/" finds its inventory entry, which sysfs spells with "!"', () => {
    const cciss = nvmeDisk({ device: 'cciss!c0d0', class: 'hdd', rotational: true });
    expect(judge([disk('cciss/c0d0', { queueDepth: stat(6) })], [], [cciss])[0]!.message).toMatch(/^cciss\/c0d0 \(HDD\)/);
  });

  test('hysteresis: an open finding stays open between clear and raise, per measure, and clears below', () => {
    const between = disk('sda', { readAwaitMs: stat(17), queueDepth: stat(3.5), utilPct: stat(85) });
    expect(judge([between])).toEqual([]);
    expect(judge([between], ['sda'])).toHaveLength(1);
    expect(judge([between], ['sdb'])).toEqual([]);
    expect(judge([disk('sda', { readAwaitMs: stat(14.9), queueDepth: stat(2.9), utilPct: stat(79) })], ['sda'])).toEqual([]);
  });

  test('each saturated disk is its own finding', () => {
    const verdicts = judge([disk('sda', { utilPct: stat(95) }), disk('nvme0n1'), disk('sdb', { writeAwaitMs: stat(60) })]);
    expect(verdicts.map((v) => v.subject)).toEqual(['sda', 'sdb']);
  });

  test('thresholds come from the caller (overrides)', () => {
    expect(judge([disk('nvme0n1', { readAwaitMs: stat(6) })])).toEqual([]);
    expect(diskSaturated.evaluate(withDisks([disk('nvme0n1', { readAwaitMs: stat(6) })]), { ...t, readAwaitMs: 5 }, ruleContext())).toHaveLength(1);
  });
});
