import path from 'node:path';
import type { z } from 'zod';
import type { dataPathSchema } from '../../lib/protocol';
import { resolveLink, wholeDiskOf } from './block-devices';
import { parseMountinfo, type MountEntry } from './mountinfo';
import { readOptional, rootedPath } from './read';
import { defineCollector } from './registration';
import { fittingText } from './values';

export type DataPath = z.infer<typeof dataPathSchema>;

/** The mount holding `target`: the longest mount-point prefix, the later one when mounts are stacked. */
export function findMount(mounts: MountEntry[], target: string): MountEntry | null {
  let best: MountEntry | null = null;
  for (const mount of mounts) {
    const mp = mount.mountPoint;
    const holds = mp === '/' || target === mp || target.startsWith(`${mp}/`);
    if (holds && (!best || mp.length >= best.mountPoint.length)) best = mount;
  }
  return best;
}

async function backingDisk(sysRoot: string, mount: MountEntry): Promise<string | null> {
  const byNumber = await resolveLink(rootedPath(sysRoot, 'dev', 'block', mount.majorMinor));
  // btrfs and some others report an anonymous 0:N device; their source still names the block device.
  const bySource = !byNumber && mount.source.startsWith('/dev/')
    ? await resolveLink(rootedPath(sysRoot, 'class', 'block', path.basename(mount.source)))
    : null;
  const deviceDir = byNumber ?? bySource;
  return deviceDir ? wholeDiskOf(deviceDir) : null;
}

export function collectDataPaths(procRoot: string, sysRoot: string, paths: string[]): Promise<DataPath[]> {
  const mountinfo = readOptional(procRoot, 'self', 'mountinfo');
  const mounts = mountinfo === undefined ? [] : parseMountinfo(mountinfo);
  return Promise.all(
    paths.map(async (given) => {
      const mount = findMount(mounts, path.resolve(given));
      if (!mount) return { path: given, device: null, mountPoint: null, fsType: null };
      const device = await backingDisk(sysRoot, mount);
      // All three are nullable: a value too long or garbled for the protocol is unknown, not cut short.
      return {
        path: given,
        device: device === null ? null : fittingText(device, 200),
        mountPoint: fittingText(mount.mountPoint, 1000),
        fsType: fittingText(mount.fsType, 64),
      };
    }),
  );
}

export const dataPathCollector = defineCollector({
  name: 'data-paths',
  reads: ['/proc/self/mountinfo', '/sys/dev/block', '/sys/class/block'],
  cadence: 'inventory',
  create: ({ config }) => ({ collect: (ctx) => collectDataPaths(ctx.procRoot, ctx.sysRoot, config.dataPaths) }),
  toReport: (dataPaths) => ({ inventory: { dataPaths } }),
});
