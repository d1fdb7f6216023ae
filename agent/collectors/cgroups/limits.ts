import { statSync } from 'node:fs';
import type { z } from 'zod';
import type { Unavailable, cgroupConfigSchema } from '../../../lib/protocol';
import { parseCpuList } from '../cpu-list';
import { readOnlineCpus } from '../host';
import { unavailable, unavailableFrom } from '../read';
import { defineCollector } from '../registration';
import type { CollectorContext } from '../types';
import { boundedText } from '../values';
import { groupDir, HOST_GROUP, lineage, readIn, readLayout, resolveGroup, type GroupIn, type ResolvedGroup } from './layout';
import { isGroupPath, parseCfsLimit, parseCpuMax, type CgroupMembership, type CpuMax } from './parse';

export type CgroupConfig = z.infer<typeof cgroupConfigSchema>;

class UnreadableLimit extends Error {}

async function quotaCoresOf(sysRoot: string, version: 1 | 2, group: GroupIn): Promise<number | null> {
  let tightest: number | null = null;
  for (const where of lineage(group)) {
    const ancestor = where[1];
    let limit: CpuMax | null = null;
    if (version === 2) {
      const text = await readIn(sysRoot, where, 'cpu.max');
      if (text !== undefined) limit = parseCpuMax(text) ?? unreadableLimit(ancestor, 'cpu.max');
    } else {
      const [quota, period] = await Promise.all([readIn(sysRoot, where, 'cpu.cfs_quota_us'), readIn(sysRoot, where, 'cpu.cfs_period_us')]);
      if (quota !== undefined && period !== undefined) limit = parseCfsLimit(quota, period) ?? unreadableLimit(ancestor, 'cpu.cfs_quota_us/cpu.cfs_period_us');
    }
    if (limit?.quotaUs == null) continue;
    const cores = limit.quotaUs / limit.periodUs;
    if (tightest === null || cores < tightest) tightest = cores;
  }
  return tightest;
}

function unreadableLimit(groupPath: string, file: string): never {
  throw new UnreadableLimit(`cgroup ${groupPath}: ${file} does not parse`);
}

/** cpuset files appear only where the controller is enabled, so the nearest ancestor that has one decides. */
async function cpusetOf(sysRoot: string, version: 1 | 2, group: GroupIn): Promise<string | null> {
  const files = version === 2 ? ['cpuset.cpus.effective'] : ['cpuset.effective_cpus', 'cpuset.cpus'];
  for (const where of lineage(group)) {
    for (const file of files) {
      const text = await readIn(sysRoot, where, file);
      const cpus = text === undefined ? '' : boundedText(text, 1000);
      if (cpus) return cpus;
    }
  }
  return null;
}

function isDirectory(dir: string | null): boolean {
  if (dir === null) return false;
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Quota, cpuset and the CPUs they leave of one resolved group. */
export async function configOf(ctx: CollectorContext, group: ResolvedGroup): Promise<CgroupConfig | Unavailable> {
  const main = group.quota ?? group.usage;
  if (!isGroupPath(group.path)) return unavailable('cgroup: the group path from mountinfo or /proc/<pid>/cgroup is not a usable path');
  if (!main || !isDirectory(groupDir(ctx.sysRoot, main))) {
    return unavailable(`cgroup ${group.path}: not found under ${main?.[0].mountPoint ?? 'any cgroup mount'}`);
  }
  let quotaCores: number | null;
  try {
    quotaCores = group.quota ? await quotaCoresOf(ctx.sysRoot, group.version, group.quota) : null;
  } catch (err) {
    if (err instanceof UnreadableLimit) return unavailable(err.message);
    throw err;
  }
  const [cpusetCpus, online] = await Promise.all([
    group.cpuset ? cpusetOf(ctx.sysRoot, group.version, group.cpuset) : null,
    readOnlineCpus(ctx.sysRoot),
  ]);
  const cpusetSize = cpusetCpus === null ? Infinity : parseCpuList(cpusetCpus).length || Infinity;
  const effectiveCpus = Math.min(quotaCores ?? Infinity, cpusetSize, online?.length ?? Infinity);
  if (!Number.isFinite(effectiveCpus)) return unavailable(`cgroup ${group.path}: online CPUs unknown and no limit set`);
  return { path: group.path, version: group.version, quotaCores, cpusetCpus, effectiveCpus };
}

/**
 * CPU limits of one group: `cgroupPath` is a path used for every controller (HOST_GROUP for the host), or the
 * membership parsed from /proc/<pid>/cgroup (v1 controllers may sit at different paths).
 */
export async function collectCgroupConfig(
  ctx: CollectorContext,
  cgroupPath: string | CgroupMembership,
): Promise<CgroupConfig | Unavailable> {
  try {
    const layout = readLayout(ctx.procRoot, ctx.sysRoot);
    if (typeof layout === 'string') return unavailable(`cgroups: ${layout}`);
    const group = resolveGroup(layout, cgroupPath);
    if (!group) return { unavailable: 'cgroup: the process has no group in the mounted cpu hierarchy' };
    return await configOf(ctx, group);
  } catch (err) {
    return unavailableFrom(err, 'cgroup');
  }
}

/** The limits of the host's own group (HOST_GROUP); each watched process's are in its inventory. */
export const hostCgroupLimitsCollector = defineCollector({
  name: 'cgroup-limits',
  reads: ['/proc/self/mountinfo', '/proc/1/mountinfo', 'the cgroup filesystem (cpu.max or cpu.cfs_*, cpuset)'],
  cadence: 'inventory',
  create: () => ({ collect: (ctx) => collectCgroupConfig(ctx, HOST_GROUP) }),
  toReport: (cgroup) => ({ inventory: { cgroup } }),
});
