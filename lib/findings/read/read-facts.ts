import { z } from 'zod';
import { column, queryRows } from '../../db/rows';
import type { Sql } from '../../db/sql';
import { withoutJit } from '../../db/without-jit';
import { MINUTE_MS } from '../../protocol/time';
import { isUnavailable, type Inventory } from '../../protocol';
import { readResidencyPolicies } from '../store/residency-policies';
import { APP_VERSION } from '../../version';
import type { CgroupWindow, DiskWindow, FleetFacts, HostFacts, HostWindow, ProcessWindow, RegionFacts, ServerWindow } from '../types';

/** The window series rules judge: long enough to call a condition sustained, short enough to resolve soon after. */
export const FINDINGS_WINDOW_MS = 5 * MINUTE_MS;
/** Probe RTTs are compared over a longer window: one probe per interval per host is a small sample. */
export const PROBE_WINDOW_MS = 15 * MINUTE_MS;
/** Per-vCPU steal is read only for hosts whose average steal reaches this, well below any sensible threshold. */
export const PER_CPU_STEAL_MIN_PCT = 1;

type Num = number | null;

const filterHosts = (hostIds: readonly number[] | undefined, column: string, param: number) =>
  hostIds ? `AND ${column} = ANY($${param}::int4[])` : '';

// Series tables are keyed (host_id, ts): a window is read host by host through that key. A time filter alone
// would scan the whole of the day's partition, which at the end of a day holds every report of every host.
const hostSource = (hostIds: readonly number[] | undefined, param: number) =>
  hostIds ? `unnest($${param}::int4[]) AS h(id)` : 'hosts h';

/** The same Sql with PostgreSQL's JIT off per query: compiling a cycle's aggregations anew each minute costs more than it saves. */
function jitless(sql: Sql): Sql {
  return { ...sql, query: (text, params) => withoutJit(sql, (tx) => tx.query(text, params)) };
}

/** Inventory snapshots are immutable: each is parsed once and kept while it is a host's newest. */
const snapshotRow = z.object({ id: column.int8, data: column.document<Inventory>() });

export class InventoryCache {
  private readonly byId = new Map<number, Inventory>();

  async load(sql: Sql, ids: readonly number[]): Promise<Map<number, Inventory>> {
    const missing = ids.filter((id) => !this.byId.has(id));
    for (let i = 0; i < missing.length; i += 1000) {
      const chunk = missing.slice(i, i + 1000);
      const rows = await queryRows(sql, 'inventory_snapshots', snapshotRow, 'SELECT id, data FROM inventory_snapshots WHERE id = ANY($1::int8[])', [chunk]);
      for (const row of rows) this.byId.set(row.id, row.data);
    }
    return new Map(ids.flatMap((id) => (this.byId.has(id) ? [[id, this.byId.get(id)!] as const] : [])));
  }

  /** Forgets snapshots no longer anyone's newest. */
  retainOnly(ids: Iterable<number>): void {
    const keep = new Set(ids);
    for (const id of this.byId.keys()) if (!keep.has(id)) this.byId.delete(id);
  }
}

/** Every host and its region; or, with `hostIds`, the hosts of those hosts' regions (their peers included). */
export async function readHostRegions(sql: Sql, hostIds?: readonly number[]): Promise<{ id: number; region: string }[]> {
  return sql.query<{ id: number; region: string }>(
    `SELECT id, region FROM hosts ${hostIds ? 'WHERE region IN (SELECT region FROM hosts WHERE id = ANY($1::int4[]))' : ''}`,
    hostIds ? [hostIds] : [],
  );
}

interface HostRow {
  id: number;
  hostname: string;
  machine_id: string | null;
  region: string;
  labels: Record<string, string> | string;
  created_at: Date;
  last_seen_at: Date | null;
  last_report_ts: Date | null;
  /** When the server stored the host's newest report, by its own clock. */
  last_received_at: Date | null;
  report_every_ms: number | null;
  agent_version: string | null;
}

interface WindowRow {
  host_id: number;
  n: number;
  last_ts: Date;
  interval_ms: number;
  longest_interval_ms: number;
  steal_avg: Num; steal_max: Num;
  iowait_avg: Num; iowait_max: Num;
  busy_avg: Num; busy_max: Num;
  psi_cpu_avg: Num; psi_cpu_max: Num;
  psi_io_avg: Num; psi_io_max: Num;
  dropped_range: Num;
}

const stat = (avg: Num, max: Num) => (avg === null || max === null ? null : { avg: Number(avg), max: Number(max) });

async function readWindows(sql: Sql, from: Date, to: Date, hostIds?: readonly number[]): Promise<WindowRow[]> {
  return sql.query<WindowRow>(
    `SELECT h.id AS host_id, w.* FROM ${hostSource(hostIds, 3)} CROSS JOIN LATERAL (
       SELECT count(*)::int AS n, max(ts) AS last_ts, (array_agg(interval_ms ORDER BY ts DESC))[1] AS interval_ms,
         max(interval_ms) AS longest_interval_ms,
         avg(cpu_steal_pct)::float8 AS steal_avg, max(cpu_steal_pct)::float8 AS steal_max,
         avg(cpu_iowait_pct)::float8 AS iowait_avg, max(cpu_iowait_pct)::float8 AS iowait_max,
         avg(cpu_user_pct + cpu_nice_pct + cpu_system_pct + cpu_irq_pct + cpu_softirq_pct)::float8 AS busy_avg,
         max(cpu_user_pct + cpu_nice_pct + cpu_system_pct + cpu_irq_pct + cpu_softirq_pct)::float8 AS busy_max,
         avg(psi_cpu_some_avg10)::float8 AS psi_cpu_avg, max(psi_cpu_some_avg10)::float8 AS psi_cpu_max,
         avg(psi_io_some_avg10)::float8 AS psi_io_avg, max(psi_io_some_avg10)::float8 AS psi_io_max,
         (max(dropped_reports) - min(dropped_reports))::float8 AS dropped_range
       FROM host_samples WHERE host_id = h.id AND ts > $1 AND ts <= $2) w
     WHERE w.n > 0`,
    hostIds ? [from, to, hostIds] : [from, to],
  );
}

async function readPerCpuSteal(sql: Sql, from: Date, to: Date, hostIds: readonly number[]) {
  if (hostIds.length === 0) return [];
  return sql.query<{ host_id: number; cpu: number; avg: number }>(
    `SELECT a.host_id, u.cpu, avg(u.steal)::float8 AS avg
       FROM cpu_sample_arrays a CROSS JOIN LATERAL unnest(a.cpu, a.steal_pct) AS u(cpu, steal)
      WHERE a.ts > $1 AND a.ts <= $2 AND a.host_id = ANY($3::int4[])
      GROUP BY a.host_id, u.cpu`,
    [from, to, hostIds],
  );
}

// The counter lives in the agent's spool state and survives restarts, but starts again from 0 when that state is lost:
// a fall is a restart, after which the new value is the count since.
async function readDroppedReports(sql: Sql, from: Date, to: Date, hostIds: readonly number[]) {
  if (hostIds.length === 0) return [];
  return sql.query<{ host_id: number; dropped: number }>(
    `SELECT host_id, sum(CASE WHEN d >= prev THEN d - prev ELSE d END)::float8 AS dropped
       FROM (SELECT host_id, dropped_reports AS d, lag(dropped_reports) OVER (PARTITION BY host_id ORDER BY ts) AS prev
               FROM host_samples WHERE ts > $1 AND ts <= $2 AND host_id = ANY($3::int4[])) s
      WHERE prev IS NOT NULL
      GROUP BY host_id`,
    [from, to, hostIds],
  );
}

/** The newest report's interval of hosts with no samples in the window (a long interval, or gone quiet). */
async function readLastIntervals(sql: Sql, hostIds: readonly number[]) {
  if (hostIds.length === 0) return [];
  return sql.query<{ host_id: number; interval_ms: number }>(
    `SELECT s.host_id, s.interval_ms FROM hosts h JOIN host_samples s ON s.host_id = h.id AND s.ts = h.last_report_ts
      WHERE h.id = ANY($1::int4[])`,
    [hostIds],
  );
}

async function readDisks(sql: Sql, from: Date, to: Date, hostIds?: readonly number[]) {
  return sql.query<{
    host_id: number; device: string;
    q_avg: number; q_max: number; ra_avg: number; ra_max: number; wa_avg: number; wa_max: number;
    util_avg: number; util_max: number; iops: number;
  }>(
    `SELECT h.id AS host_id, d.* FROM ${hostSource(hostIds, 3)} CROSS JOIN LATERAL (
       SELECT u.device,
         avg(u.q)::float8 AS q_avg, max(u.q)::float8 AS q_max, avg(u.ra)::float8 AS ra_avg, max(u.ra)::float8 AS ra_max,
         avg(u.wa)::float8 AS wa_avg, max(u.wa)::float8 AS wa_max, avg(u.util)::float8 AS util_avg,
         max(u.util)::float8 AS util_max, avg(u.ri + u.wi)::float8 AS iops
       FROM disk_sample_arrays a
       CROSS JOIN LATERAL unnest(a.device, a.queue_depth, a.read_await_ms, a.write_await_ms, a.util_pct, a.read_iops, a.write_iops)
            AS u(device, q, ra, wa, util, ri, wi)
       WHERE a.host_id = h.id AND a.ts > $1 AND a.ts <= $2
       GROUP BY u.device) d`,
    hostIds ? [from, to, hostIds] : [from, to],
  );
}

async function readCgroups(sql: Sql, from: Date, to: Date, hostIds?: readonly number[]) {
  const mid = new Date((from.getTime() + to.getTime()) / 2);
  return sql.query<{
    host_id: number; path: string; quota: Num; usage: number; thr_avg: number; thr_max: number; thr_ms: number;
    thr_first: Num; thr_second: Num;
  }>(
    `SELECT h.id AS host_id, g.* FROM ${hostSource(hostIds, 4)} CROSS JOIN LATERAL (
       SELECT path, (array_agg(quota_cores ORDER BY ts DESC))[1]::float8 AS quota, avg(usage_cores)::float8 AS usage,
         avg(throttled_pct)::float8 AS thr_avg, max(throttled_pct)::float8 AS thr_max,
         avg(throttled_ms_per_s)::float8 AS thr_ms,
         (avg(throttled_pct) FILTER (WHERE ts <= $3))::float8 AS thr_first,
         (avg(throttled_pct) FILTER (WHERE ts > $3))::float8 AS thr_second
       FROM cgroup_samples WHERE host_id = h.id AND ts > $1 AND ts <= $2
       GROUP BY path) g`,
    hostIds ? [from, to, mid, hostIds] : [from, to, mid],
  );
}

async function readProcesses(sql: Sql, from: Date, to: Date, hostIds?: readonly number[]) {
  return sql.query<{ host_id: number; name: string; pid: number; threads: number; cpu: number }>(
    `SELECT h.id AS host_id, p.* FROM ${hostSource(hostIds, 3)} CROSS JOIN LATERAL (
       SELECT name, pid, max(threads)::int AS threads, avg(cpu_cores)::float8 AS cpu
       FROM process_samples WHERE host_id = h.id AND ts > $1 AND ts <= $2
       GROUP BY name, pid) p`,
    hostIds ? [from, to, hostIds] : [from, to],
  );
}

const serverWindowRow = z.object({
  host_id: column.id,
  name: z.string(),
  n: z.number().int(),
  n_pre: z.number().int(),
  n_preempting: z.number().int(),
  pre_avg: z.number().nullable(),
  pre_max: z.number().nullable(),
  kv_avg: z.number().nullable(),
  kv_max: z.number().nullable(),
});

/** Scraped servers' KV cache and preemptions; only servers that published either (LLM engines) are read. */
async function readServers(sql: Sql, from: Date, to: Date, hostIds?: readonly number[]) {
  return queryRows(
    sql,
    'server_samples',
    serverWindowRow,
    `SELECT h.id AS host_id, s.* FROM ${hostSource(hostIds, 3)} CROSS JOIN LATERAL (
       SELECT name, count(*)::int AS n, count(preemptions_per_min)::int AS n_pre,
         (count(*) FILTER (WHERE preemptions_per_min > 0))::int AS n_preempting,
         avg(preemptions_per_min)::float8 AS pre_avg, max(preemptions_per_min)::float8 AS pre_max,
         avg(kv_cache_pct)::float8 AS kv_avg, max(kv_cache_pct)::float8 AS kv_max
       FROM server_samples WHERE host_id = h.id AND ts > $1 AND ts <= $2 AND ok
       GROUP BY name
       HAVING count(preemptions_per_min) > 0 OR count(kv_cache_pct) > 0) s`,
    hostIds ? [from, to, hostIds] : [from, to],
  );
}

function groupBy<T extends { host_id: number }>(rows: readonly T[]): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const row of rows) {
    const list = map.get(row.host_id);
    if (list) list.push(row);
    else map.set(row.host_id, [row]);
  }
  return map;
}

export interface ReadFactsOptions {
  now: Date;
  /** Only these hosts (an inventory change); every host when absent. */
  hostIds?: readonly number[];
  inventories: InventoryCache;
  windowMs?: number;
}

/** Everything the host rules judge, for every host (or the given ones), in a fixed number of queries. */
export async function readHostFacts(db: Sql, options: ReadFactsOptions): Promise<HostFacts[]> {
  const sql = jitless(db);
  const { now, hostIds } = options;
  const to = now;
  const from = new Date(now.getTime() - (options.windowMs ?? FINDINGS_WINDOW_MS));
  const [hosts, latestInventory, windows, disks, cgroups, processes, servers] = await Promise.all([
    sql.query<HostRow>(
      // last_seen_at is written only every few seconds, and last_report_ts is the agent's clock: a host whose clock is
      // behind would look silent between those writes. Its newest ledger row says when it was last heard.
      `SELECT h.id, h.hostname, h.machine_id, h.region, h.labels, h.created_at, h.last_seen_at, h.last_report_ts, h.report_every_ms,
              h.agent_version,
              r.received_at AS last_received_at
         FROM hosts h
         LEFT JOIN LATERAL (SELECT received_at FROM report_ledger WHERE host_id = h.id ORDER BY seq DESC LIMIT 1) r ON TRUE
        WHERE TRUE ${filterHosts(hostIds, 'h.id', 1)} ORDER BY h.id`,
      hostIds ? [hostIds] : [],
    ),
    sql.query<{ host_id: number; id: number; taken_at: Date }>(
      `SELECT DISTINCT ON (host_id) host_id, id, taken_at FROM inventory_snapshots
       WHERE TRUE ${filterHosts(hostIds, 'host_id', 1)} ORDER BY host_id, taken_at DESC, id DESC`,
      hostIds ? [hostIds] : [],
    ),
    readWindows(sql, from, to, hostIds),
    readDisks(sql, from, to, hostIds),
    readCgroups(sql, from, to, hostIds),
    readProcesses(sql, from, to, hostIds),
    readServers(sql, from, to, hostIds),
  ]);
  const stolenFrom = windows.filter((w) => (w.steal_avg ?? 0) >= PER_CPU_STEAL_MIN_PCT).map((w) => w.host_id);
  const droppedFrom = windows.filter((w) => (w.dropped_range ?? 0) > 0).map((w) => w.host_id);
  const windowByHost = new Map(windows.map((w) => [w.host_id, w]));
  const quiet = hosts.filter((h) => !windowByHost.has(h.id) && h.last_report_ts !== null).map((h) => h.id);
  const [perCpu, dropped, lastIntervals, inventoryData] = await Promise.all([
    readPerCpuSteal(sql, from, to, stolenFrom),
    readDroppedReports(sql, from, to, droppedFrom),
    readLastIntervals(sql, quiet),
    options.inventories.load(sql, latestInventory.map((r) => Number(r.id))),
  ]);
  if (!hostIds) options.inventories.retainOnly(latestInventory.map((r) => Number(r.id)));

  const droppedByHost = new Map(dropped.map((d) => [d.host_id, Number(d.dropped)]));
  const lastIntervalByHost = new Map(lastIntervals.map((r) => [r.host_id, Number(r.interval_ms)]));
  const inventoryByHost = new Map(latestInventory.map((r) => [r.host_id, r]));
  const disksByHost = groupBy(disks);
  const cgroupsByHost = groupBy(cgroups);
  const processesByHost = groupBy(processes);
  const serversByHost = groupBy(servers);
  const perCpuByHost = groupBy(perCpu);

  return hosts.map((h): HostFacts => {
    const w = windowByHost.get(h.id);
    const inv = inventoryByHost.get(h.id);
    const data = inv ? inventoryData.get(Number(inv.id)) : undefined;
    const heard = [h.last_seen_at, h.last_received_at, h.last_report_ts, w?.last_ts].filter((d): d is Date => d != null).map((d) => new Date(d).getTime());
    const sampled = [h.last_report_ts, w?.last_ts].filter((d): d is Date => d != null).map((d) => new Date(d).getTime());
    return {
      host: {
        id: h.id,
        hostname: h.hostname,
        region: h.region,
        labels: column.labels.parse(h.labels),
        createdAtMs: new Date(h.created_at).getTime(),
        machineId: h.machine_id,
      },
      nowMs: now.getTime(),
      lastReportMs: heard.length ? Math.max(...heard) : null,
      lastSampleMs: sampled.length ? Math.max(...sampled) : null,
      lastIntervalMs: w ? Number(w.interval_ms) : (lastIntervalByHost.get(h.id) ?? null),
      reportEveryMs: h.report_every_ms === null ? null : Number(h.report_every_ms),
      agentVersion: h.agent_version,
      inventory: inv && data ? { takenAtMs: new Date(inv.taken_at).getTime(), data } : null,
      window: w
        ? toWindow(w, from, to, droppedByHost.get(h.id) ?? 0, disksByHost.get(h.id), cgroupsByHost.get(h.id), processesByHost.get(h.id), perCpuByHost.get(h.id), serversByHost.get(h.id))
        : null,
    };
  });
}

function toWindow(
  w: WindowRow,
  from: Date,
  to: Date,
  droppedReports: number,
  disks: Awaited<ReturnType<typeof readDisks>> = [],
  cgroups: Awaited<ReturnType<typeof readCgroups>> = [],
  processes: Awaited<ReturnType<typeof readProcesses>> = [],
  perCpu: { cpu: number; avg: number }[] = [],
  servers: z.output<typeof serverWindowRow>[] = [],
): HostWindow {
  return {
    fromMs: from.getTime(),
    toMs: to.getTime(),
    samples: w.n,
    longestIntervalMs: Number(w.longest_interval_ms),
    stealPct: stat(w.steal_avg, w.steal_max),
    iowaitPct: stat(w.iowait_avg, w.iowait_max),
    busyPct: stat(w.busy_avg, w.busy_max),
    psiCpuSomePct: stat(w.psi_cpu_avg, w.psi_cpu_max),
    psiIoSomePct: stat(w.psi_io_avg, w.psi_io_max),
    perCpuStealPct: perCpu.map((c) => ({ cpu: Number(c.cpu), avg: Number(c.avg) })).sort((a, b) => b.avg - a.avg || a.cpu - b.cpu),
    disks: disks.map((d): DiskWindow => ({
      device: d.device,
      queueDepth: { avg: d.q_avg, max: d.q_max },
      readAwaitMs: { avg: d.ra_avg, max: d.ra_max },
      writeAwaitMs: { avg: d.wa_avg, max: d.wa_max },
      utilPct: { avg: d.util_avg, max: d.util_max },
      iops: d.iops,
    })),
    cgroups: cgroups.map((g): CgroupWindow => ({
      path: g.path,
      quotaCores: g.quota,
      usageCores: g.usage,
      throttledPct: { avg: g.thr_avg, max: g.thr_max },
      throttledMsPerS: g.thr_ms,
      throttledPctFirstHalf: g.thr_first,
      throttledPctSecondHalf: g.thr_second,
    })),
    processes: processes.map((p): ProcessWindow => ({ name: p.name, pid: p.pid, threadsMax: p.threads, cpuCores: p.cpu })),
    servers: servers.map((s): ServerWindow => ({
      name: s.name,
      samples: s.n,
      preemptionSamples: s.n_pre,
      preemptingSamples: s.n_preempting,
      preemptionsPerMin: s.pre_avg === null || s.pre_max === null ? null : { avg: s.pre_avg, max: s.pre_max },
      kvCachePct: s.kv_avg === null || s.kv_max === null ? null : { avg: s.kv_avg, max: s.kv_max },
    })),
    droppedReports,
  };
}

/** Per CPU model, how many hosts have it and how many of those see AVX-512; the residency policies; this server's version. */
export async function readFleetFacts(sql: Sql, hosts: readonly HostFacts[]): Promise<FleetFacts> {
  const cpuModels = new Map<string, { hosts: number; withAvx512: number }>();
  for (const facts of hosts) {
    const cpu = facts.inventory?.data.cpu;
    if (!cpu || isUnavailable(cpu)) continue;
    const entry = cpuModels.get(cpu.model) ?? { hosts: 0, withAvx512: 0 };
    entry.hosts++;
    if (cpu.flags.includes('avx512f')) entry.withAvx512++;
    cpuModels.set(cpu.model, entry);
  }
  return { cpuModels, residencyPolicies: await readResidencyPolicies(sql), serverVersion: APP_VERSION };
}

/** Median probe RTT per region and probe over the probe window, from successful probes only. */
export async function readRegionFacts(db: Sql, now: Date, windowMs = PROBE_WINDOW_MS): Promise<RegionFacts[]> {
  const sql = jitless(db);
  const from = new Date(now.getTime() - windowMs);
  const rows = await sql.query<{ region: string; name: string; target: string; hosts: number; samples: number; connect: Num; response: Num }>(
    `SELECT h.region, p.name, min(p.target) AS target, count(DISTINCT h.id)::int AS hosts, count(*)::int AS samples,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY p.connect_ms)::float8 AS connect,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY p.response_ms)::float8 AS response
     FROM hosts h CROSS JOIN LATERAL (
       SELECT name, target, connect_ms, response_ms FROM probe_samples
        WHERE host_id = h.id AND ts > $1 AND ts <= $2 AND ok) p
     GROUP BY h.region, p.name ORDER BY h.region, p.name`,
    [from, now],
  );
  const regions = new Map<string, RegionFacts>();
  for (const row of rows) {
    let region = regions.get(row.region);
    if (!region) regions.set(row.region, (region = { region: row.region, fromMs: from.getTime(), toMs: now.getTime(), probes: [] }));
    region.probes.push({
      name: row.name,
      target: row.target,
      hosts: row.hosts,
      samples: row.samples,
      medianConnectMs: row.connect,
      medianResponseMs: row.response,
    });
  }
  return [...regions.values()];
}
