import { z } from 'zod';
import { hostInventorySchema } from '../../lib/protocol';
import { parseCpuList } from './cpu-list';
import { readOptional } from './read';
import { defineCollector } from './registration';
import type { CollectorContext } from './types';
import { boundedText, parseCounter, unitsToBytes } from './values';

export type HostInventory = z.infer<typeof hostInventorySchema>;

export function parseMemTotalBytes(meminfo: string): number | null {
  const match = /^MemTotal:\s+(\d+)\s*kB/m.exec(meminfo);
  const kb = match ? parseCounter(match[1]) : null;
  return unitsToBytes(kb, 1024);
}

/** The online CPUs from /sys/devices/system/cpu/online, or undefined when it cannot be read. */
export function readOnlineCpus(sysRoot: string): number[] | undefined {
  const text = readOptional(sysRoot, 'devices/system/cpu/online');
  if (text === undefined) return undefined;
  const cpus = parseCpuList(text);
  return cpus.length > 0 ? cpus : undefined;
}

function countCpuinfoProcessors(procRoot: string): number {
  const cpuinfo = readOptional(procRoot, 'cpuinfo');
  return cpuinfo?.match(/^processor\s*:/gm)?.length ?? 0;
}

export async function collectHostInventory(ctx: CollectorContext): Promise<HostInventory> {
  const [osrelease, meminfo, online] = await Promise.all([
    readOptional(ctx.procRoot, 'sys/kernel/osrelease'),
    readOptional(ctx.procRoot, 'meminfo'),
    readOnlineCpus(ctx.sysRoot),
  ]);
  return {
    kernel: osrelease === undefined ? null : boundedText(osrelease, 200) || null,
    memTotalBytes: meminfo === undefined ? null : parseMemTotalBytes(meminfo),
    onlineCpus: online?.length ?? countCpuinfoProcessors(ctx.procRoot),
  };
}

export const hostCollector = defineCollector({
  name: 'host',
  reads: ['/proc/sys/kernel/osrelease', '/proc/meminfo', '/sys/devices/system/cpu/online', '/proc/cpuinfo'],
  cadence: 'inventory',
  create: () => ({ collect: collectHostInventory }),
  toReport: (host) => ({ inventory: { host } }),
});
