import { describe, expect, test } from 'vitest';
import type { DiskInventory, Inventory } from '../../protocol';
import { cleanInventory, defaultsOf, hostFacts, nvmeDisk, ruleContext } from '../../../tests/support/findings-facts';
import { dataPathSlowDisk } from './storage.data-path-slow-disk';

const t = defaultsOf(dataPathSlowDisk.defaults);
const SATA_SSD = nvmeDisk({ device: 'sda', class: 'ssd', model: 'Samsung SSD 860 EVO 1TB', hwQueues: 1, scheduler: 'mq-deadline' });
const HDD = nvmeDisk({ device: 'sdb', class: 'hdd', model: 'WDC WD40EFRX-68N', rotational: true, hwQueues: 1 });
const VIRTIO = nvmeDisk({ device: 'vda', class: 'virtual', model: null, rotational: true, hwQueues: 2 });
const LVM = nvmeDisk({ device: 'dm-0', class: 'other', model: null, rotational: false, hwQueues: null });

const modelsOn = (disk: DiskInventory, patch: Partial<Inventory> = {}) =>
  hostFacts({
    inventory: cleanInventory({
      disks: [nvmeDisk(), disk],
      dataPaths: [{ path: '/models', device: disk.device, mountPoint: '/data', fsType: 'ext4' }],
      ...patch,
    }),
  });
const judge = (facts = modelsOn(SATA_SSD)) => dataPathSlowDisk.evaluate(facts, t, ruleContext());

describe('storage.data-path-slow-disk', () => {
  test('a clean host (models on NVMe) raises nothing', () => {
    expect(judge(hostFacts())).toEqual([]);
  });

  test('models on a SATA SSD are a warning about that path, with the article\'s reason and NVMe as the remedy', () => {
    const [v] = judge();
    expect(v).toMatchObject({ subject: '/models', severity: 'warning' });
    expect(v!.message).toBe(
      '/models is on sda (ext4 at /data), a SATA/SAS SSD, Samsung SSD 860 EVO 1TB, not NVMe: one SATA/SAS link (around 500 MB/s on SATA) and one command queue, where NVMe has many.',
    );
    expect(v!.remedy).toContain('`rsync -a /models/ /mnt/nvme/models/`');
    expect(v!.remedy).toContain('standard SATA SSDs top out around 500 MB/s');
    expect(v!.evidence.series).toEqual([{ metric: 'disk_read_await', key: 'sda' }, { metric: 'disk_queue_depth', key: 'sda' }]);
  });

  test('an HDD and a virtual disk raise it too; a virtual disk\'s remedy asks the provider', () => {
    expect(judge(modelsOn(HDD))[0]!.message).toContain('an HDD, WDC WD40EFRX-68N, not NVMe: a spinning disk');
    const [virtual] = judge(modelsOn(VIRTIO));
    expect(virtual!.message).toContain('is on vda (ext4 at /data), a virtual disk, not NVMe');
    expect(virtual!.remedy).toMatch(/^Ask the provider for local NVMe storage/);
  });

  test('a stacked device (dm, md) says nothing about its media and raises nothing', () => {
    expect(judge(modelsOn(LVM))).toEqual([]);
  });

  test('a path whose device is unknown, or not among the disks, raises nothing', () => {
    expect(judge(modelsOn(SATA_SSD, { dataPaths: [{ path: '/models', device: null, mountPoint: null, fsType: null }] }))).toEqual([]);
    expect(judge(modelsOn(SATA_SSD, { dataPaths: [{ path: '/models', device: 'sdz', mountPoint: '/', fsType: 'xfs' }] }))).toEqual([]);
    expect(judge(modelsOn(SATA_SSD, { disks: { unavailable: 'disk inventory: /sys/block not readable' } }))).toEqual([]);
  });

  test('each slow path is its own finding; a path on NVMe beside it is not', () => {
    const facts = modelsOn(SATA_SSD, {
      dataPaths: [
        { path: '/models', device: 'sda', mountPoint: '/data', fsType: 'ext4' },
        { path: '/data/images/', device: 'sda', mountPoint: '/data', fsType: 'ext4' },
        { path: '/cache', device: 'nvme0n1', mountPoint: '/', fsType: 'ext4' },
      ],
    });
    const verdicts = judge(facts);
    expect(verdicts.map((v) => v.subject)).toEqual(['/models', '/data/images/']);
    expect(verdicts[1]!.remedy).toContain('`rsync -a /data/images/ /mnt/nvme/data/images/`');
  });
});
