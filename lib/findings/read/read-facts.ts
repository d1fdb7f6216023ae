import type { Sql } from '../../db/sql';
import { withoutJit } from '../../db/without-jit';
import { MINUTE_MS } from '../../protocol/time';
import { isUnavailable } from '../../protocol';
import { readPerCpuSteal, type CpuStealMean } from '../../series/per-cpu-steal';
import { readCgroupWindows, type CgroupWindowRow } from './facts/cgroup-windows';
import { readDiskWindows, type DiskWindowRow } from './facts/disk-windows';
import { readDroppedReports } from './facts/dropped-reports';
import { readHostWindows, type HostWindowRow } from './facts/host-windows';
import { readHosts } from './facts/hosts';
import type { InventoryCache } from './facts/inventory-cache';
import { readLastIntervals } from './facts/last-intervals';
import { readLatestInventories } from './facts/latest-inventories';
import { readProcessWindows, type ProcessWindowRow } from './facts/process-windows';
import { readRegionProbes } from './facts/region-probes';
import { readServerWindows, type ServerWindowRow } from './facts/server-windows';
import { readResidencyPolicies } from '../store/residency-policies';
import { APP_VERSION } from '../../version';
import type { CgroupWindow, DiskWindow, FleetFacts, HostFacts, HostWindow, ProcessWindow, RegionFacts, ServerWindow } from '../types';

/** The window series rules judge: long enough to call a condition sustained, short enough to resolve soon after. */
export const FINDINGS_WINDOW_MS = 5 * MINUTE_MS;
/** Probe RTTs are compared over a longer window: one probe per interval per host is a small sample. */
export const PROBE_WINDOW_MS = 15 * MINUTE_MS;
/** Per-vCPU steal is read only for hosts whose average steal reaches this, well below any sensible threshold. */
export const PER_CPU_STEAL_MIN_PCT = 1;

/** The same Sql with PostgreSQL's JIT off per query: compiling a cycle's aggregations anew each minute costs more than it saves. */
function jitless(sql: Sql): Sql {
  return { ...sql, query: (text, params) => withoutJit(sql, (tx) => tx.query(text, params)) };
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
    readHosts(sql, hostIds),
    readLatestInventories(sql, hostIds),
    readHostWindows(sql, from, to, hostIds),
    readDiskWindows(sql, from, to, hostIds),
    readCgroupWindows(sql, from, to, hostIds),
    readProcessWindows(sql, from, to, hostIds),
    readServerWindows(sql, from, to, hostIds),
  ]);
  const stolenFrom = windows.filter((w) => (w.steal_avg ?? 0) >= PER_CPU_STEAL_MIN_PCT).map((w) => w.host_id);
  const droppedFrom = windows.filter((w) => (w.dropped_range ?? 0) > 0).map((w) => w.host_id);
  const windowByHost = new Map(windows.map((w) => [w.host_id, w]));
  const quiet = hosts.filter((h) => !windowByHost.has(h.id) && h.last_report_ts !== null).map((h) => h.id);
  const [perCpuByHost, droppedByHost, lastIntervalByHost, inventoryData] = await Promise.all([
    readPerCpuSteal(sql, stolenFrom, from, to),
    readDroppedReports(sql, from, to, droppedFrom),
    readLastIntervals(sql, quiet),
    options.inventories.load(sql, latestInventory.map((r) => r.id)),
  ]);
  if (!hostIds) options.inventories.retainOnly(latestInventory.map((r) => r.id));

  const inventoryByHost = new Map(latestInventory.map((r) => [r.host_id, r]));
  const disksByHost = groupBy(disks);
  const cgroupsByHost = groupBy(cgroups);
  const processesByHost = groupBy(processes);
  const serversByHost = groupBy(servers);

  return hosts.map((h): HostFacts => {
    const w = windowByHost.get(h.id);
    const inv = inventoryByHost.get(h.id);
    const data = inv ? inventoryData.get(inv.id) : undefined;
    const heard = [h.last_seen_at, h.last_received_at, h.last_report_ts, w?.last_ts].filter((d): d is Date => d != null).map((d) => d.getTime());
    const sampled = [h.last_report_ts, w?.last_ts].filter((d): d is Date => d != null).map((d) => d.getTime());
    return {
      host: {
        id: h.id,
        hostname: h.hostname,
        region: h.region,
        labels: h.labels,
        createdAtMs: h.created_at.getTime(),
        machineId: h.machine_id,
      },
      nowMs: now.getTime(),
      lastReportMs: heard.length ? Math.max(...heard) : null,
      lastSampleMs: sampled.length ? Math.max(...sampled) : null,
      lastIntervalMs: w ? w.interval_ms : (lastIntervalByHost.get(h.id) ?? null),
      reportEveryMs: h.report_every_ms,
      agentVersion: h.agent_version,
      inventory: inv && data ? { takenAtMs: inv.taken_at.getTime(), data } : null,
      window: w
        ? toWindow(w, from, to, droppedByHost.get(h.id) ?? 0, disksByHost.get(h.id), cgroupsByHost.get(h.id), processesByHost.get(h.id), perCpuByHost.get(h.id), serversByHost.get(h.id))
        : null,
    };
  });
}

const stat = (avg: number | null, max: number | null) => (avg === null || max === null ? null : { avg, max });

function toWindow(
  w: HostWindowRow,
  from: Date,
  to: Date,
  droppedReports: number,
  disks: readonly DiskWindowRow[] = [],
  cgroups: readonly CgroupWindowRow[] = [],
  processes: readonly ProcessWindowRow[] = [],
  perCpu: readonly CpuStealMean[] = [],
  servers: readonly ServerWindowRow[] = [],
): HostWindow {
  return {
    fromMs: from.getTime(),
    toMs: to.getTime(),
    samples: w.n,
    longestIntervalMs: w.longest_interval_ms,
    stealPct: stat(w.steal_avg, w.steal_max),
    iowaitPct: stat(w.iowait_avg, w.iowait_max),
    busyPct: stat(w.busy_avg, w.busy_max),
    psiCpuSomePct: stat(w.psi_cpu_avg, w.psi_cpu_max),
    psiIoSomePct: stat(w.psi_io_avg, w.psi_io_max),
    perCpuStealPct: perCpu.map((c) => ({ cpu: c.cpu, avg: c.stealPct })),
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

/** Median probe RTT per region and probe over the probe window. */
export async function readRegionFacts(db: Sql, now: Date, windowMs = PROBE_WINDOW_MS): Promise<RegionFacts[]> {
  const sql = jitless(db);
  const from = new Date(now.getTime() - windowMs);
  const rows = await readRegionProbes(sql, from, now);
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
