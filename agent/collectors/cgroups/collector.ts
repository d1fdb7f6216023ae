import type { CgroupSample, Unavailable } from '../../../lib/protocol';
import { readOptional, unavailableFrom } from '../read';
import { clampPct, createReadingPairs } from '../reading-pairs';
import { defineCollector } from '../registration';
import type { Collector, CollectorContext } from '../types';
import { isMeasurable, parseCounter } from '../values';
import { HOST_GROUP, readIn, readLayout, resolveGroup, type ResolvedGroup } from './layout';
import { configOf, type CgroupConfig } from './limits';
import { parseCgroupFile, parseCpuStat, type CgroupMembership } from './parse';

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
  const layout = readLayout(ctx.procRoot, ctx.sysRoot);
  if (typeof layout === 'string') throw new Error(layout);
  const targets: (string | CgroupMembership)[] = [HOST_GROUP];
  for (const { pid } of ctx.watched) {
    const text = readOptional(ctx.procRoot, String(pid), 'cgroup');
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

/** The group's figures over the interval; null when a counter jumped past any real rate (see isMeasurable). */
function cgroupSampleFrom(prev: GroupReading, curr: GroupReading, elapsedS: number): CgroupSample | null {
  const delta = (a: number, b: number) => Math.max(0, b - a);
  const periods = delta(prev.nrPeriods, curr.nrPeriods);
  const throttled = delta(prev.nrThrottled, curr.nrThrottled);
  if (!isMeasurable(throttled / elapsedS)) return null;
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
        const sample = prev && !samples.has(curr.config.path) ? cgroupSampleFrom(prev, curr, elapsedS) : null;
        if (sample) samples.set(curr.config.path, sample);
      }
      return [...samples.values()].slice(0, 64);
    },
  };
}

export const cgroupCollector = defineCollector({
  name: 'cgroups',
  reads: ['/proc/self/mountinfo', '/proc/1/mountinfo', '/proc/<pid>/cgroup', 'the cgroup filesystem (cpu.stat, cpuacct.usage)'],
  cadence: 'rates',
  create: () => createCgroupCollector(),
  whenFailed: (reason) => ({ unavailable: reason }),
  toReport: (cgroups) => ({ sections: { cgroups } }),
});
