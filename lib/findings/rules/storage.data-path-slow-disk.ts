import type { DiskInventory } from '../../protocol';
import { defineHostRule, type Verdict } from '../types';
import { DISK_CLASS_NAMES, disksOf } from '../facts/disk-classes';

/** Classes judged slow for models and data; `other` (dm, md) says nothing about the media beneath it. */
const SLOW_CLASSES = new Set<DiskInventory['class']>(['hdd', 'ssd', 'virtual']);

const A_DISK: Record<string, string> = { hdd: 'an HDD', ssd: 'a SATA/SAS SSD', virtual: 'a virtual disk' };

const WHY: Record<string, string> = {
  hdd: 'a spinning disk, where every random read waits for the head to seek',
  ssd: 'one SATA/SAS link (around 500 MB/s on SATA) and one command queue, where NVMe has many',
  virtual: 'its speed is whatever storage the provider backs it with, which the guest cannot see',
};

const MOVE =
  'Move the models and data to an NVMe disk and point the server and `--data-path` there (e.g. ' +
  '`rsync -a <path>/ /mnt/nvme<path>/`, then switch the config). The article: standard SATA SSDs top out around ' +
  '500 MB/s, and the IOPS queue they build stalls the CPU — "When your CPU waits for data, your expensive ' +
  'inference code is doing nothing." A model that fits in memory can also be loaded once at start-up, so ' +
  'requests never read it from disk.';

export const dataPathSlowDisk = defineHostRule({
  id: 'storage.data-path-slow-disk',
  title: 'Models or data on a slower disk than NVMe',
  category: 'storage',
  severities: ['warning'],
  defaults: {},
  openAfterMs: 0,
  needs: 'inventory',
  evaluate(facts) {
    const disks = disksOf(facts);
    const verdicts: Verdict[] = [];
    for (const dataPath of facts.inventory!.data.dataPaths) {
      const disk = dataPath.device ? disks.get(dataPath.device) : undefined;
      if (!disk || !SLOW_CLASSES.has(disk.class)) continue;
      const where = [dataPath.fsType, dataPath.mountPoint && `at ${dataPath.mountPoint}`].filter(Boolean).join(' ');
      const model = disk.model ? `, ${disk.model}` : '';
      verdicts.push({
        subject: dataPath.path,
        severity: 'warning',
        message:
          `${dataPath.path} is on ${disk.device}${where ? ` (${where})` : ''}, ${A_DISK[disk.class]}${model}, not NVMe: ` +
          `${WHY[disk.class]}.`,
        remedy: (disk.class === 'virtual' ? 'Ask the provider for local NVMe storage (a plan or instance type with it). ' : '') +
          MOVE.replaceAll('<path>', dataPath.path.replace(/\/+$/, '')),
        evidence: {
          values: [
            { label: 'data path', value: dataPath.path },
            { label: 'disk', value: disk.device },
            { label: 'disk class', value: DISK_CLASS_NAMES[disk.class] },
            { label: 'disk model', value: disk.model },
            { label: 'rotational', value: disk.rotational },
            { label: 'mount point', value: dataPath.mountPoint },
            { label: 'filesystem', value: dataPath.fsType },
          ],
          series: [
            { metric: 'disk_read_await', key: disk.device },
            { metric: 'disk_queue_depth', key: disk.device },
          ],
        },
      });
    }
    return verdicts;
  },
});
