import { isUnavailable, type DiskInventory } from '../../protocol';
import type { HostFacts } from '../types';

/** What the storage rules call each disk class in a message. */
export const DISK_CLASS_NAMES: Record<DiskInventory['class'], string> = {
  nvme: 'NVMe',
  ssd: 'SATA/SAS SSD',
  hdd: 'HDD',
  virtual: 'virtual disk',
  other: 'stacked device',
};

/** The host's disks by name; empty when it sent no inventory or could not read its disks. */
export function disksOf(facts: HostFacts): Map<string, DiskInventory> {
  const disks = facts.inventory?.data.disks;
  if (!disks || isUnavailable(disks)) return new Map();
  return new Map(disks.map((disk) => [disk.device, disk]));
}

/** /proc/diskstats names a device as the kernel does ("cciss/c0d0"); sysfs and the inventory use "!" for "/". */
export const inventoryNameOf = (kernelName: string) => kernelName.replaceAll('/', '!');
