import { SEVERITIES, SEVERITY_RANK, type FindingCounts, type Severity } from '../protocol/findings';
import {
  DEFAULT_FLEET_PAGE_SIZE,
  DEFAULT_SORT_DIRECTION,
  type FleetHost,
  type FleetPageInfo,
  type FleetParams,
  type FleetSort,
  type FleetTiles,
  type HostStatus,
  type SortDirection,
} from '../protocol/read-api/fleet';

/** The fleet table's filtering, ordering and paging, on hosts already read: pure, so it is tested on literals. */

export function worstSeverity(counts: FindingCounts): Severity | null {
  return SEVERITIES.find((severity) => counts[severity] > 0) ?? null;
}

function includesText(host: FleetHost, needle: string): boolean {
  if (host.hostname.toLowerCase().includes(needle) || host.region.toLowerCase().includes(needle)) return true;
  return Object.entries(host.labels).some(([key, value]) => `${key}:${value}`.toLowerCase().includes(needle));
}

export function filterFleetHosts(hosts: readonly FleetHost[], params: FleetParams): FleetHost[] {
  const regions = params.region || params.regions?.length ? new Set([...(params.regions ?? []), ...(params.region ? [params.region] : [])]) : null;
  const statuses = params.status?.length ? new Set<HostStatus>(params.status) : null;
  const labels = params.label ? Object.entries(params.label) : [];
  const needle = params.q?.toLowerCase() ?? '';
  return hosts.filter((host) => {
    if (regions && !regions.has(host.region)) return false;
    if (statuses && !statuses.has(host.status)) return false;
    if (labels.some(([key, value]) => host.labels[key] !== value)) return false;
    if (params.finding) {
      const worst = worstSeverity(host.findings);
      if (params.finding === 'any' ? worst === null : params.finding === 'none' ? worst !== null : worst !== params.finding) return false;
    }
    return needle === '' || includesText(host, needle);
  });
}

// One collator for every comparison: String#localeCompare builds one per call, which dominates sorting 10,000 hosts.
const collator = new Intl.Collator('en');

// Stale hosts need a look before healthy ones; hosts that never reported are usually still being set up.
const STATUS_RANK: Record<HostStatus, number> = { stale: 0, never_reported: 1, ok: 2 };

type SortValue = number | string | null;

function sortValue(host: FleetHost, sort: Exclude<FleetSort, 'attention'>): SortValue {
  switch (sort) {
    case 'hostname':
      return host.hostname;
    case 'region':
      return host.region;
    case 'status':
      return STATUS_RANK[host.status];
    case 'steal':
      return host.latest?.stealPct ?? null;
    case 'iowait':
      return host.latest?.iowaitPct ?? null;
    case 'diskQueue':
      return host.diskQueueDepth ?? null;
    case 'p99':
      return host.p99Ms ?? null;
    case 'findings':
      return host.findings.critical * 1e6 + host.findings.warning * 1e3 + host.findings.info;
    case 'lastSeen':
      return host.latest?.ts ?? host.lastSeenAt;
  }
}

function compareValues(a: SortValue, b: SortValue): number {
  if (typeof a === 'string' && typeof b === 'string') return collator.compare(a, b);
  return (a as number) - (b as number);
}

function byName(a: FleetHost, b: FleetHost): number {
  return collator.compare(a.hostname, b.hostname) || collator.compare(a.region, b.region) || a.id - b.id;
}

/** Most severe open finding first, then more of them, then by name (a silent host has its own finding). */
function byAttention(a: FleetHost, b: FleetHost): number {
  const rank = (host: FleetHost) => {
    const worst = worstSeverity(host.findings);
    return worst === null ? SEVERITIES.length : SEVERITY_RANK[worst];
  };
  return (
    rank(a) - rank(b) ||
    b.findings.critical - a.findings.critical ||
    b.findings.warning - a.findings.warning ||
    b.findings.info - a.findings.info ||
    byName(a, b)
  );
}

/** Sorted copy; hosts without a value (no report yet, no latency) go last in either direction. */
export function sortFleetHosts(hosts: readonly FleetHost[], sort: FleetSort, dir: SortDirection): FleetHost[] {
  const sign = dir === 'asc' ? 1 : -1;
  if (sort === 'attention') return [...hosts].sort((a, b) => sign * byAttention(a, b));
  const keyed = hosts.map((host) => ({ host, value: sortValue(host, sort) }));
  keyed.sort((a, b) => {
    if (a.value === null || b.value === null) {
      return a.value === b.value ? byName(a.host, b.host) : a.value === null ? 1 : -1;
    }
    return sign * compareValues(a.value, b.value) || byName(a.host, b.host);
  });
  return keyed.map((entry) => entry.host);
}

export function resolveSort(params: Pick<FleetParams, 'sort' | 'dir'>): { sort: FleetSort; dir: SortDirection } {
  const sort = params.sort ?? 'attention';
  return { sort, dir: params.dir ?? DEFAULT_SORT_DIRECTION[sort] };
}

/** The page `params` asks for, clamped to the last page; every host when it asks for none. */
export function pageOf<T>(items: readonly T[], params: Pick<FleetParams, 'page' | 'limit'>): { items: T[]; page: number; limit: number; pages: number } {
  if (params.page === undefined && params.limit === undefined) {
    return { items: [...items], page: 1, limit: Math.max(1, items.length), pages: 1 };
  }
  const limit = params.limit ?? DEFAULT_FLEET_PAGE_SIZE;
  const pages = Math.max(1, Math.ceil(items.length / limit));
  const page = Math.min(params.page ?? 1, pages);
  return { items: items.slice((page - 1) * limit, page * limit), page, limit, pages };
}

export function pageInfo(total: number, paged: { page: number; limit: number; pages: number }, sort: { sort: FleetSort; dir: SortDirection }): FleetPageInfo {
  return { page: paged.page, limit: paged.limit, pages: paged.pages, total, ...sort };
}

/** Status and finding counts of the tiles, over every host. */
export function countFleetTiles(hosts: readonly FleetHost[]): Omit<FleetTiles, 'p99Ms' | 'latencyCount' | 'latencyWindowMs'> {
  const misconfiguredHosts: FindingCounts = { critical: 0, warning: 0, info: 0 };
  let reporting = 0;
  let stale = 0;
  let neverReported = 0;
  for (const host of hosts) {
    if (host.status === 'ok') reporting++;
    else if (host.status === 'stale') stale++;
    else neverReported++;
    const worst = worstSeverity(host.findings);
    if (worst) misconfiguredHosts[worst]++;
  }
  return { hosts: hosts.length, reporting, stale, neverReported, misconfiguredHosts };
}

/** Whether ordering by `sort` needs the per-host values that are otherwise read for the shown page only. */
export function sortNeedsAllHosts(sort: FleetSort): 'diskQueue' | 'p99' | null {
  return sort === 'diskQueue' || sort === 'p99' ? sort : null;
}
