import { readdirSync } from 'node:fs';
import { readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { readOptional, rootedPath } from './read';

/** Memory- and file-backed devices: not storage an inference host's latency depends on. */
export const SKIPPED_BY_DEFAULT = /^(loop|ram|zram)\d+$/;

/** /proc/diskstats names use "/" where sysfs uses "!" (e.g. cciss/c0d0 → cciss!c0d0). */
export function sysfsName(kernelName: string): string {
  return kernelName.replaceAll('/', '!');
}

/** Whole block devices (disks, dm, md — not partitions): the entries of /sys/block. */
export function listWholeDisks(sysRoot: string): Set<string> {
  return new Set(readdirSync(rootedPath(sysRoot, 'block')));
}

/** The sysfs directory of a block device reached through a symlink such as /sys/dev/block/M:m. */
export async function resolveLink(linkPath: string): Promise<string | null> {
  try {
    return path.resolve(path.dirname(linkPath), await readlink(linkPath));
  } catch {
    return null;
  }
}

/**
 * The whole disk holding the block device at `deviceDir`: a partition's parent, and through a dm/md
 * device with exactly one slave (LVM on one disk) that slave's disk.
 */
export async function wholeDiskOf(deviceDir: string, depth = 0): Promise<string> {
  const isPartition = (readOptional(deviceDir, 'partition')) !== undefined;
  const diskDir = isPartition ? path.dirname(deviceDir) : deviceDir;
  if (depth < 4) {
    const slaves = await readdir(path.join(diskDir, 'slaves')).catch(() => [] as string[]);
    if (slaves.length === 1) {
      const slaveDir = await resolveLink(path.join(diskDir, 'slaves', slaves[0]!));
      if (slaveDir) return wholeDiskOf(slaveDir, depth + 1);
    }
  }
  return path.basename(diskDir);
}
