import { fittingText, parseCounter } from '../values';

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
export function isGroupPath(groupPath: string): boolean {
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
