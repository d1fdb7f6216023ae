import { describe, expect, test } from 'vitest';
import type { DiskInventory } from '../../protocol';
import { cleanInventory, defaultsOf, hostFacts, nvmeDisk, ruleContext } from '../../../tests/support/findings-facts';
import { udevKernelMatch, virtualRotational } from './storage.virtual-rotational';

const t = defaultsOf(virtualRotational.defaults);
const VIRTIO = nvmeDisk({ device: 'vda', class: 'virtual', model: null, rotational: true, hwQueues: 2, scheduler: 'mq-deadline' });
const withDisks = (...disks: DiskInventory[]) => hostFacts({ inventory: cleanInventory({ disks: [nvmeDisk(), ...disks] }) });
const judge = (...disks: DiskInventory[]) => virtualRotational.evaluate(withDisks(...disks), t, ruleContext());

describe('storage.virtual-rotational', () => {
  test('a clean host raises nothing', () => {
    expect(virtualRotational.evaluate(hostFacts(), t, ruleContext())).toEqual([]);
  });

  test('a virtio disk that reports itself rotational is an info finding with the udev rule', () => {
    const [v] = judge(VIRTIO);
    expect(v).toMatchObject({ subject: 'vda', severity: 'info' });
    expect(v!.message).toBe(
      'vda is a virtual disk (scheduler mq-deadline) that reports itself rotational, so the kernel treats it as a spinning disk: ' +
        'its writeback-throttling target defaults to 75 ms instead of 2 ms, and btrfs and swap on it choose their spinning-disk behaviour.',
    );
    expect(v!.remedy).toContain('/etc/udev/rules.d/60-virtual-ssd.rules: `ACTION=="add|change", KERNEL=="vd[a-z]", ATTR{queue/rotational}="0"`');
    expect(v!.remedy).toContain('udevadm trigger');
    expect(v!.remedy).toContain('`echo -1 > /sys/block/vda/queue/wbt_lat_usec`');
    expect(v!.remedy).toContain('rotation_rate=1');
  });

  test('under BFQ the message speaks of its idling, and writeback throttling (off under BFQ) is not suggested', () => {
    const [v] = judge({ ...VIRTIO, scheduler: 'bfq' });
    expect(v!.message).toContain('BFQ idles between requests');
    expect(v!.remedy).not.toContain('wbt_lat_usec');
  });

  test('a virtual SCSI disk by model gets a rule for its own name', () => {
    const [v] = judge(nvmeDisk({ device: 'sdb', class: 'virtual', model: 'QEMU HARDDISK', rotational: true, scheduler: null }));
    expect(v!.message).toMatch(/^sdb is a virtual disk \(QEMU HARDDISK\) that/);
    expect(v!.remedy).toContain('KERNEL=="sdb"');
  });

  test('virtual disks already non-rotational, or not saying, and real HDDs raise nothing', () => {
    expect(judge({ ...VIRTIO, rotational: false }, { ...VIRTIO, device: 'vdb', rotational: null })).toEqual([]);
    expect(judge(nvmeDisk({ device: 'sda', class: 'hdd', rotational: true }))).toEqual([]);
  });

  test('each such disk is its own finding', () => {
    expect(judge(VIRTIO, { ...VIRTIO, device: 'vdb' }).map((v) => v.subject)).toEqual(['vda', 'vdb']);
  });

  test('an unavailable disk inventory raises nothing', () => {
    expect(virtualRotational.evaluate(hostFacts({ inventory: cleanInventory({ disks: { unavailable: 'disk inventory: /sys/block not readable' } }) }), t, ruleContext())).toEqual([]);
  });
});

describe('udevKernelMatch', () => {
  test('virtio and Xen names match their family; others their own name', () => {
    expect(['vda', 'vdb', 'xvda', 'vdaa', 'sdc', 'nvme1n1'].map(udevKernelMatch)).toEqual(['vd[a-z]', 'vd[a-z]', 'xvd[a-z]', 'vdaa', 'sdc', 'nvme1n1']);
  });
});
