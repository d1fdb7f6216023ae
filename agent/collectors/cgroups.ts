import { statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { CgroupSample, Unavailable, cgroupConfigSchema } from '../../lib/protocol';
import { parseCpuList } from './cpu-list';
import { readOnlineCpus } from './host';
import { clampPct, createReadingPairs } from './reading-pairs';
import { readOptional, unavailable, unavailableFrom } from './read';
import type { Collector, CollectorContext } from './types';
import { boundedText, fittingText, parseCounter } from './values';

export type CgroupConfig = z.infer<typeof cgroupConfigSchema>;

/** A process's groups from /proc/<pid>/cgroup: the cgroup2 path and, per v1 controller, its path. */
export interface CgroupMembership {
  unified: string | null;
  v1: Record<string, string>;
}

export function parseCgroupFile(text: string): CgroupMembership {
  const membership: CgroupMembership = { unified: null, v1: {} };
  for (const line of text.split('\n')) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!match) continue;
    const [, id, controllers, groupPath] = match as unknown as [string, string, string, string];
    if (!isGroupPath(groupPath)) continue;
    if (id === '0' && controllers === '') membership.unified = groupPath;
    else for (const controller of controllers.split(',')) if (controller) membership.v1[controller] = groupPath;
  }
  return membership;
}

const MAX_PATH_LENGTH = 1000;

/** A group path as the protocol carries it: absolute, at most 1000 characters, no control characters. */
function isGroupPath(groupPath: string): boolean {
  return groupPath.startsWith('/') && fittingText(groupPath, MAX_PATH_LENGTH) === groupPath;
}

export interface CpuMax {
  /** null when the quota is "max" (unlimited). */
  quotaUs: number | null;
  periodUs: number;
}

/** cpu.max is "max 100000" or "QUOTA PERIOD"; null when it is neither (a limit we cannot read is not "unlimited"). */
export function parseCpuMax(text: string): CpuMax | null {
  const [quota, period] = text.trim().split(/\s+/);
  const periodUs = period === undefined ? 100_000 : parseCounter(period);
  const quotaUs = quota === 'max' ? null : parseCounter(quota);
  if (periodUs === null || !(periodUs > 0) || (quotaUs === null && quota !== 'max')) return null;
  return { quotaUs, periodUs };
}

/** v1 cpu.cfs_quota_us and cpu.cfs_period_us: a quota of -1 is unlimited; null when either does not parse. */
export function parseCfsLimit(quotaText: string, periodText: string): CpuMax | null {
  const quota = quotaText.trim();
  const quotaUs = quota === '-1' ? null : parseCounter(quota);
  const periodUs = parseCounter(periodText);
  if (periodUs === null || !(periodUs > 0) || (quotaUs === null && quota !== '-1')) return null;
  return { quotaUs, periodUs };
}

class UnreadableLimit extends Error {}

export interface CgroupCpuStat {
  /** v2 only; v1 reports usage in cpuacct.usage instead. */
  usageUs: number | null;
  nrPeriods: number;
  nrThrottled: number;
  throttledUs: number;
}

const CPU_STAT_KEYS = new Set(['usage_usec', 'nr_periods', 'nr_throttled', 'throttled_usec', 'throttled_time']);

/**
 * Parses cpu.stat of either version: v2 has usage_usec/throttled_usec, v1 has throttled_time in ns.
 * null when a line the agent uses does not parse: 0 throttling would be a claim, not a gap.
 */
export function parseCpuStat(text: string): CgroupCpuStat | null {
  const fields = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [key, value] = line.trim().split(/\s+/);
    if (!key || !CPU_STAT_KEYS.has(key)) continue;
    const parsed = parseCounter(value);
    if (parsed === null) return null;
    fields.set(key, parsed);
  }
  const throttledNs = fields.get('throttled_time');
  return {
    usageUs: fields.get('usage_usec') ?? null,
    nrPeriods: fields.get('nr_periods') ?? 0,
    nrThrottled: fields.get('nr_throttled') ?? 0,
    throttledUs: fields.get('throttled_usec') ?? (throttledNs === undefined ? 0 : throttledNs / 1000),
  };
}

export interface CgroupMount {
  version: 1 | 2;
  /** The group of the hierarchy mounted there ("/" unless a namespace or bind mount shows a subtree). */
  root: string;
  mountPoint: string;
  controllers: string[];
}

const unescapeMountinfo = (field: string) => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

export function parseCgroupMounts(mountinfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [before, after] = line.split(' - ');
    if (before === undefined || after === undefined) continue;
    const fields = before.split(' ');
    const [fsType, , superOptions = ''] = after.split(' ');
    const root = fields[3];
    const mountPoint = fields[4];
    if (root === undefined || mountPoint === undefined) continue;
    if (fsType !== 'cgroup' && fsType !== 'cgroup2') continue;
    mounts.push({
      version: fsType === 'cgroup2' ? 2 : 1,
      root: unescapeMountinfo(root),
      mountPoint: unescapeMountinfo(mountPoint),
      controllers: fsType === 'cgroup' ? superOptions.split(',') : [],
    });
  }
  return mounts;
}

/** Where the CPU controllers live: one cgroup2 hierarchy, or up to three v1 hierarchies. */
export type CgroupLayout =
  | { version: 2; unified: CgroupMount }
  | { version: 1; cpu?: CgroupMount; cpuacct?: CgroupMount; cpuset?: CgroupMount };

/** A controller can be bound to one hierarchy only, so a v1 cpu/cpuacct mount means v2 has no cpu controller. */
export function chooseCgroupLayout(mounts: CgroupMount[]): CgroupLayout | null {
  const v1 = (controller: string) => mounts.find((m) => m.version === 1 && m.controllers.includes(controller));
  const cpu = v1('cpu');
  const cpuacct = v1('cpuacct');
  if (cpu || cpuacct) return { version: 1, cpu, cpuacct, cpuset: v1('cpuset') };
  const unified = mounts.find((m) => m.version === 2 && m.mountPoint === '/sys/fs/cgroup') ?? mounts.find((m) => m.version === 2);
  return unified ? { version: 2, unified } : null;
}

/** Maps a mount point from mountinfo (e.g. /sys/fs/cgroup/cpu) into the configured sysRoot. */
export function mountPointUnder(sysRoot: string, mountPoint: string): string {
  if (mountPoint === '/sys' || mountPoint.startsWith('/sys/')) return path.join(sysRoot, mountPoint.slice('/sys'.length));
  return path.join(path.dirname(sysRoot), mountPoint);
}

/** The directory of a group, or null when the group lies outside what this mount shows. */
function groupDir(sysRoot: string, mount: CgroupMount, groupPath: string): string | null {
  // A group outside our cgroup namespace shows as "/../..": it cannot be reached from this mount.
  if (groupPath.split('/').includes('..')) return null;
  const relative = path.posix.relative(mount.root, groupPath);
  if (relative.startsWith('..') || path.posix.isAbsolute(relative)) return null;
  return path.join(mountPointUnder(sysRoot, mount.mountPoint), relative);
}

/** The group and its ancestors up to the mount's root, innermost first. */
function lineage(mount: CgroupMount, groupPath: string): string[] {
  const paths = [groupPath];
  let current = groupPath;
  while (current !== mount.root && current !== '/') {
    current = path.posix.dirname(current);
    paths.push(current);
  }
  return paths;
}

/** The group to sample for "the host": the broadest group this agent can see, i.e. the mount's root. */
export const HOST_GROUP = '/';

function pathFor(target: string | CgroupMembership, mount: CgroupMount, controller: string | null): string | null {
  if (typeof target === 'string') return target === HOST_GROUP ? mount.root : target;
  return controller === null ? target.unified : (target.v1[controller] ?? null);
}

interface ResolvedGroup {
  version: 1 | 2;
  path: string;
  /** [mount, group path] per role; v2 uses the unified hierarchy for every role. */
  quota: [CgroupMount, string] | null;
  usage: [CgroupMount, string] | null;
  cpuset: [CgroupMount, string] | null;
}

function resolveGroup(layout: CgroupLayout, target: string | CgroupMembership): ResolvedGroup | null {
  const pick = (mount: CgroupMount | undefined, controller: string | null): [CgroupMount, string] | null => {
    if (!mount) return null;
    const groupPath = pathFor(target, mount, controller);
    return groupPath === null ? null : [mount, groupPath];
  };
  if (layout.version === 2) {
    const unified = pick(layout.unified, null);
    return unified && { version: 2, path: unified[1], quota: unified, usage: unified, cpuset: unified };
  }
  const quota = pick(layout.cpu, 'cpu');
  const usage = pick(layout.cpuacct, 'cpuacct');
  const cpuset = pick(layout.cpuset, 'cpuset');
  const main = quota ?? usage;
  return main && { version: 1, path: main[1], quota, usage, cpuset };
}

const readIn = (sysRoot: string, [mount, groupPath]: [CgroupMount, string], file: string) => {
  const dir = groupDir(sysRoot, mount, groupPath);
  return dir === null ? Promise.resolve(undefined) : readOptional(dir, file);
};

async function quotaCoresOf(sysRoot: string, version: 1 | 2, [mount, groupPath]: [CgroupMount, string]): Promise<number | null> {
  let tightest: number | null = null;
  for (const ancestor of lineage(mount, groupPath)) {
    const where: [CgroupMount, string] = [mount, ancestor];
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
async function cpusetOf(sysRoot: string, version: 1 | 2, [mount, groupPath]: [CgroupMount, string]): Promise<string | null> {
  const files = version === 2 ? ['cpuset.cpus.effective'] : ['cpuset.effective_cpus', 'cpuset.cpus'];
  for (const ancestor of lineage(mount, groupPath)) {
    for (const file of files) {
      const text = await readIn(sysRoot, [mount, ancestor], file);
      const cpus = text === undefined ? '' : boundedText(text, 1000);
      if (cpus) return cpus;
    }
  }
  return null;
}

async function exists(dir: string | null): Promise<boolean> {
  if (dir === null) return false;
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

async function configOf(ctx: CollectorContext, group: ResolvedGroup): Promise<CgroupConfig | Unavailable> {
  const main = group.quota ?? group.usage;
  if (!isGroupPath(group.path)) return unavailable('cgroup: the group path from mountinfo or /proc/<pid>/cgroup is not a usable path');
  if (!main || !(await exists(groupDir(ctx.sysRoot, main[0], main[1])))) {
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

/** The layout, or the reason there is none. */
async function readLayout(procRoot: string): Promise<CgroupLayout | string> {
  const mountinfo = await readOptional(procRoot, 'self/mountinfo');
  if (mountinfo === undefined) return '/proc/self/mountinfo not readable';
  if (mountinfo !== lastLayout.mountinfo) {
    const layout = chooseCgroupLayout(parseCgroupMounts(mountinfo)) ?? 'no cgroup2 or v1 cpu/cpuacct mount in /proc/self/mountinfo';
    lastLayout = { mountinfo, layout };
  }
  return lastLayout.layout;
}

// mountinfo is read several times per report and almost never changes; parsing it was a visible share of the CPU.
let lastLayout: { mountinfo: string; layout: CgroupLayout | string } = { mountinfo: '', layout: '' };

/**
 * CPU limits of one group: `cgroupPath` is a path used for every controller (HOST_GROUP for the host), or the
 * membership parsed from /proc/<pid>/cgroup (v1 controllers may sit at different paths).
 */
export async function collectCgroupConfig(
  ctx: CollectorContext,
  cgroupPath: string | CgroupMembership,
): Promise<CgroupConfig | Unavailable> {
  try {
    const layout = await readLayout(ctx.procRoot);
    if (typeof layout === 'string') return unavailable(`cgroups: ${layout}`);
    const group = resolveGroup(layout, cgroupPath);
    if (!group) return { unavailable: 'cgroup: the process has no group in the mounted cpu hierarchy' };
    return await configOf(ctx, group);
  } catch (err) {
    return unavailableFrom(err, 'cgroup');
  }
}

interface GroupReading {
  config: CgroupConfig;
  usageNs: number;
  nrPeriods: number;
  nrThrottled: number;
  throttledUs: number;
}

async function readGroup(ctx: CollectorContext, group: ResolvedGroup): Promise<GroupReading | null> {
  const config = await configOf(ctx, group);
  if ('unavailable' in config) return null;
  const statWhere = group.quota ?? group.usage;
  const [statText, usageText] = await Promise.all([
    statWhere ? readIn(ctx.sysRoot, statWhere, 'cpu.stat') : undefined,
    group.version === 1 && group.usage ? readIn(ctx.sysRoot, group.usage, 'cpuacct.usage') : undefined,
  ]);
  const cpuStat = parseCpuStat(statText ?? '');
  if (cpuStat === null) return null;
  const usageNs = group.version === 2 ? (cpuStat.usageUs === null ? null : cpuStat.usageUs * 1000) : parseCounter(usageText);
  if (usageNs === null) return null;
  return { config, usageNs, nrPeriods: cpuStat.nrPeriods, nrThrottled: cpuStat.nrThrottled, throttledUs: cpuStat.throttledUs };
}

function groupKey(group: ResolvedGroup): string {
  return [group.version, group.quota?.[1], group.usage?.[1], group.cpuset?.[1]].join('|');
}

async function readAllGroups(ctx: CollectorContext): Promise<Map<string, GroupReading>> {
  const layout = await readLayout(ctx.procRoot);
  if (typeof layout === 'string') throw new Error(layout);
  const targets: (string | CgroupMembership)[] = [HOST_GROUP];
  for (const { pid } of ctx.watched) {
    const text = await readOptional(ctx.procRoot, String(pid), 'cgroup');
    if (text !== undefined) targets.push(parseCgroupFile(text));
  }
  const groups = new Map<string, ResolvedGroup>();
  for (const target of targets) {
    const group = resolveGroup(layout, target);
    if (group && !groups.has(groupKey(group))) groups.set(groupKey(group), group);
  }
  const readings = new Map<string, GroupReading>();
  for (const [key, group] of groups) {
    const reading = await readGroup(ctx, group);
    if (reading) readings.set(key, reading);
  }
  return readings;
}

export function cgroupSampleFrom(prev: GroupReading, curr: GroupReading, elapsedS: number): CgroupSample {
  const delta = (a: number, b: number) => Math.max(0, b - a);
  const periods = delta(prev.nrPeriods, curr.nrPeriods);
  const throttled = delta(prev.nrThrottled, curr.nrThrottled);
  return {
    ...curr.config,
    usageCores: delta(prev.usageNs, curr.usageNs) / 1e9 / elapsedS,
    throttledPeriodsPerS: throttled / elapsedS,
    throttledPct: periods === 0 ? 0 : clampPct((throttled / periods) * 100),
    throttledMsPerS: delta(prev.throttledUs, curr.throttledUs) / 1000 / elapsedS,
  };
}

/**
 * Samples the host group (HOST_GROUP: the root of the visible hierarchy — inside a container with its own cgroup
 * namespace that is the container) and the group of each watched process, once each. A group appears from its
 * second reading on; the first collect() only takes the baseline.
 */
export function createCgroupCollector(): Collector<CgroupSample[] | Unavailable> {
  const pairs = createReadingPairs(readAllGroups);
  return {
    name: 'cgroups',
    async collect(ctx) {
      let pair;
      try {
        pair = await pairs(ctx);
      } catch (err) {
        return unavailableFrom(err, 'cgroups');
      }
      if (!pair) return { unavailable: 'cgroups: warming up, rates start with the next interval' };
      const elapsedS = (pair.curr.atMs - pair.prev.atMs) / 1000;
      if (!(elapsedS > 0)) return { unavailable: 'cgroups: no time elapsed between readings' };
      const samples = new Map<string, CgroupSample>();
      for (const [key, curr] of pair.curr.value) {
        const prev = pair.prev.value.get(key);
        // v1 groups that share a cpu path but not a cpuset path are one series to the server: the first one stays.
        if (prev && !samples.has(curr.config.path)) samples.set(curr.config.path, cgroupSampleFrom(prev, curr, elapsedS));
      }
      return [...samples.values()].slice(0, 64);
    },
  };
}
