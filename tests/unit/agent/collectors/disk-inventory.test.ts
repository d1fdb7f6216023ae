import { describe, expect, test } from 'vitest';
import { classifyDisk, parseRotational, parseScheduler, parseSizeBytes } from '../../../../agent/collectors/disk-inventory';
import { collectDiskInventory } from '../../../../agent/collectors/disks';
import { diskInventorySchema } from '../../../../lib/protocol';
import { expectData, fixture } from './two-readings';

describe('collectDiskInventory', () => {
  test('describes the virtio disk of the Debian KVM guest and leaves out loop and zram devices', async () => {
    const disks = expectData(await collectDiskInventory({ sysRoot: fixture('debian-kvm', 'sys') }));
    expect(disks).toEqual([
      { device: 'vda', class: 'virtual', model: null, rotational: true, sizeBytes: 536870912 * 512, hwQueues: 1, scheduler: 'mq-deadline' },
    ]);
    expect(diskInventorySchema.parse(disks[0])).toEqual(disks[0]);
  });

  test('classifies hand-made NVMe, SATA SSD, SATA HDD, virtio, dm and md sysfs trees', async () => {
    const disks = expectData(await collectDiskInventory({ sysRoot: fixture('handmade', 'mixed-disks', 'sys') }));
    expect(disks).toEqual([
      { device: 'dm-0', class: 'other', model: null, rotational: false, sizeBytes: 1048576000 * 512, hwQueues: null, scheduler: 'none' },
      { device: 'md0', class: 'other', model: null, rotational: true, sizeBytes: 976508928 * 512, hwQueues: null, scheduler: 'none' },
      { device: 'nvme0n1', class: 'nvme', model: 'Samsung SSD 980 PRO 1TB', rotational: false, sizeBytes: 1953525168 * 512, hwQueues: 4, scheduler: 'none' },
      { device: 'sda', class: 'ssd', model: 'Samsung SSD 860', rotational: false, sizeBytes: 976773168 * 512, hwQueues: 1, scheduler: 'mq-deadline' },
      { device: 'sdb', class: 'hdd', model: 'ST4000DM004-2CV1', rotational: true, sizeBytes: 7814037168 * 512, hwQueues: 1, scheduler: 'mq-deadline' },
      { device: 'vdb', class: 'virtual', model: null, rotational: true, sizeBytes: 209715200 * 512, hwQueues: 2, scheduler: 'none' },
    ]);
  });

  test('lists loop devices when asked to include virtual ones', async () => {
    const disks = expectData(await collectDiskInventory({ sysRoot: fixture('handmade', 'mixed-disks', 'sys') }, { includeVirtual: true }));
    expect(disks.map((d) => d.device)).toContain('loop0');
  });

  test('reports unavailable when /sys/block is missing', async () => {
    expect(await collectDiskInventory({ sysRoot: '/nonexistent/sys' })).toEqual({ unavailable: 'disk inventory: not present on this kernel' });
  });
});

describe('classifyDisk', () => {
  const facts = { name: 'sdc', rotational: true, devicePath: null, driver: 'sd', model: null };
  test('calls a QEMU-emulated SCSI disk virtual even though it claims to rotate', () => {
    expect(classifyDisk({ ...facts, model: 'QEMU HARDDISK' })).toBe('virtual');
  });
  test('calls a Xen xvd disk virtual', () => {
    expect(classifyDisk({ ...facts, name: 'xvda', driver: 'vbd' })).toBe('virtual');
  });
  test('calls a disk with unknown rotation other', () => {
    expect(classifyDisk({ ...facts, rotational: null })).toBe('other');
  });
});

describe('odd sysfs attribute files', () => {
  test('parseRotational: only "0" and "1" say something; anything else is unknown, not solid state', () => {
    expect([parseRotational('1\n'), parseRotational('0\n'), parseRotational(''), parseRotational('2'), parseRotational('yes')]).toEqual([true, false, null, null, null]);
  });
  test('parseSizeBytes: 512-byte sectors, null (never NaN) when the file is not a number', () => {
    expect(parseSizeBytes('209715200\n')).toBe(209715200 * 512);
    for (const odd of ['', 'x', '-1', '1.5', '9'.repeat(30)]) expect(parseSizeBytes(odd), odd).toBeNull();
  });
  test('parseScheduler: an entry too long for the protocol is unknown, not cut short', () => {
    expect(parseScheduler(`none [${'x'.repeat(65)}]`)).toBeNull();
  });
});

describe('parseScheduler', () => {
  test('picks the bracketed scheduler', () => {
    expect(parseScheduler('none [mq-deadline] kyber bfq \n')).toBe('mq-deadline');
  });
  test('takes the only entry when there is no choice', () => {
    expect(parseScheduler('none\n')).toBe('none');
  });
});
