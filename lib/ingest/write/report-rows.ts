import type { CgroupSample, CpuSample, DiskSample, LatencySeries, PerCpu, ProbeSample, ProcessSample, Report, ServerSample } from '../../protocol';
import { isUnavailable } from '../../protocol';
import { SERIES_KINDS, TABLES, type ColumnOf, type SeriesKind } from '../../series/tables';

export type CellValue = number | string | boolean | null | number[] | string[];

/** Rows of one table, flat and row-major (row i is values[i·width … (i+1)·width)): cheap to append and to encode. */
export interface TableRows {
  width: number;
  values: CellValue[];
}

export type RowBatch = Record<SeriesKind, TableRows>;

export function emptyRowBatch(): RowBatch {
  const batch = {} as RowBatch;
  for (const kind of SERIES_KINDS) batch[kind] = { width: 2 + TABLES[kind].columns.length, values: [] };
  return batch;
}

/** Tags as canonical JSON (keys sorted), so one tag set is one primary-key value whatever order the agent used. */
export function canonicalTags(tags: LatencySeries['tags']): string {
  const keys = Object.keys(tags);
  if (keys.length === 0) return '{}';
  keys.sort();
  const sorted: Record<string, string> = {};
  for (const key of keys) sorted[key] = tags[key]!;
  return JSON.stringify(sorted);
}

type Row<K extends SeriesKind> = Record<ColumnOf<K>, CellValue>;

// Each table's columns after host_id and ts, in the order the writers send them.
const COLUMN_NAMES = Object.fromEntries(
  SERIES_KINDS.map((kind) => [kind, TABLES[kind].columns.map((c) => c.name)]),
) as { [K in SeriesKind]: ColumnOf<K>[] };

function pushRow<K extends SeriesKind>(batch: RowBatch, kind: K, hostId: number, ts: string, row: Row<K>): void {
  const out = batch[kind].values;
  out.push(hostId, ts);
  for (const name of COLUMN_NAMES[kind]) out.push(row[name]);
}

function hostRow(report: Report, cpu: CpuSample | null): Row<'host'> {
  const pressure = isUnavailable(report.pressure) ? null : report.pressure;
  const psiCpu = pressure && !isUnavailable(pressure.cpu) ? pressure.cpu : null;
  const psiIo = pressure && !isUnavailable(pressure.io) ? pressure.io : null;
  const psiMemory = pressure && !isUnavailable(pressure.memory) ? pressure.memory : null;
  const total = cpu?.total;
  return {
    interval_ms: report.intervalMs,
    cpu_user_pct: total?.userPct ?? null,
    cpu_nice_pct: total?.nicePct ?? null,
    cpu_system_pct: total?.systemPct ?? null,
    cpu_iowait_pct: total?.iowaitPct ?? null,
    cpu_irq_pct: total?.irqPct ?? null,
    cpu_softirq_pct: total?.softirqPct ?? null,
    cpu_steal_pct: total?.stealPct ?? null,
    cpu_idle_pct: total?.idlePct ?? null,
    online_cpus: cpu?.onlineCpus ?? null,
    ctxt_per_s: cpu?.contextSwitchesPerS ?? null,
    load1: cpu?.load1 ?? null,
    load5: cpu?.load5 ?? null,
    load15: cpu?.load15 ?? null,
    procs_running: cpu?.procsRunning ?? null,
    procs_blocked: cpu?.procsBlocked ?? null,
    psi_cpu_some_avg10: psiCpu?.some.avg10 ?? null,
    psi_cpu_some_pct: psiCpu?.some.stallPct ?? null,
    psi_io_some_avg10: psiIo?.some.avg10 ?? null,
    psi_io_some_pct: psiIo?.some.stallPct ?? null,
    psi_io_full_avg10: psiIo?.full?.avg10 ?? null,
    psi_io_full_pct: psiIo?.full?.stallPct ?? null,
    psi_mem_some_avg10: psiMemory?.some.avg10 ?? null,
    psi_mem_some_pct: psiMemory?.some.stallPct ?? null,
    psi_mem_full_avg10: psiMemory?.full?.avg10 ?? null,
    psi_mem_full_pct: psiMemory?.full?.stallPct ?? null,
    dropped_reports: report.agent.droppedReports,
    malformed_statsd: report.agent.malformedStatsdPackets,
  };
}

// A report's CPUs and disks are stored as one row of arrays: each column holds one field of every item, in order.
const PER_CPU_FIELDS: Record<ColumnOf<'cpu'>, keyof PerCpu> = {
  cpu: 'cpu',
  user_pct: 'userPct',
  nice_pct: 'nicePct',
  system_pct: 'systemPct',
  iowait_pct: 'iowaitPct',
  irq_pct: 'irqPct',
  softirq_pct: 'softirqPct',
  steal_pct: 'stealPct',
  idle_pct: 'idlePct',
};

const DISK_FIELDS: Record<ColumnOf<'disk'>, keyof DiskSample> = {
  device: 'device',
  read_iops: 'readIops',
  write_iops: 'writeIops',
  read_bytes_per_s: 'readBytesPerS',
  write_bytes_per_s: 'writeBytesPerS',
  read_await_ms: 'readAwaitMs',
  write_await_ms: 'writeAwaitMs',
  queue_depth: 'queueDepth',
  in_flight: 'inFlight',
  util_pct: 'utilPct',
};

function pushArrays<K extends 'cpu' | 'disk', T>(
  batch: RowBatch, kind: K, hostId: number, ts: string, fields: Record<ColumnOf<K>, keyof T>, items: readonly T[],
): void {
  const out = batch[kind].values;
  out.push(hostId, ts);
  for (const name of COLUMN_NAMES[kind]) {
    const field = fields[name];
    out.push(items.map((item) => item[field]) as CellValue);
  }
}

const cgroupRow = (g: CgroupSample): Row<'cgroup'> => ({
  path: g.path,
  quota_cores: g.quotaCores,
  effective_cpus: g.effectiveCpus,
  usage_cores: g.usageCores,
  throttled_periods_per_s: g.throttledPeriodsPerS,
  throttled_pct: g.throttledPct,
  throttled_ms_per_s: g.throttledMsPerS,
});

const processRow = (p: ProcessSample): Row<'process'> => ({
  name: p.name,
  pid: p.pid,
  threads: p.threads,
  cpu_cores: p.cpuCores,
  rss_bytes: p.rssBytes,
  voluntary_cs_per_s: p.voluntaryCtxSwitchesPerS,
  nonvoluntary_cs_per_s: p.nonvoluntaryCtxSwitchesPerS,
});

const latencyRow = (l: LatencySeries): Row<'latency'> => ({
  name: l.name,
  tags: canonicalTags(l.tags),
  count: l.sketch.count,
  sum: l.sketch.sum,
  min: l.sketch.min,
  max: l.sketch.max,
  zero_count: l.sketch.zeroCount,
  keys: l.sketch.keys,
  counts: l.sketch.counts,
  // JSON has no Infinity: the wire's null (an open top bucket) is stored as the unbounded error it means.
  bucket_errors: l.bucketErrors ? l.bucketErrors.map((e) => e ?? Infinity) : null,
});

const probeRow = (p: ProbeSample): Row<'probe'> => ({
  name: p.name,
  target: p.target,
  ok: p.ok,
  connect_ms: p.connectMs,
  response_ms: p.responseMs,
  error: p.error,
});

const serverRow = (s: ServerSample): Row<'server'> => ({
  name: s.name,
  ok: s.ok,
  requests_per_s: s.requestsPerS,
  latency_mean_ms: s.latencyMeanMs,
  queue_mean_ms: s.queueMeanMs,
  waiting: s.waiting,
  running: s.running,
  batch_size: s.batchSize,
  dropped_series: s.droppedSeries,
  error: s.error,
  token_mean_ms: s.tokenMeanMs ?? null,
  kv_cache_pct: s.kvCachePct ?? null,
  preemptions_per_min: s.preemptionsPerMin ?? null,
});

/** Appends the series rows of one validated report; the host comes from the token, never from the report. */
export function appendReportRows(batch: RowBatch, hostId: number, report: Report): void {
  const ts = new Date(report.ts).toISOString();
  const cpu = isUnavailable(report.cpu) ? null : report.cpu;
  pushRow(batch, 'host', hostId, ts, hostRow(report, cpu));
  if (cpu && cpu.perCpu.length > 0) pushArrays(batch, 'cpu', hostId, ts, PER_CPU_FIELDS, cpu.perCpu);
  if (!isUnavailable(report.disks) && report.disks.length > 0) pushArrays(batch, 'disk', hostId, ts, DISK_FIELDS, report.disks);
  if (!isUnavailable(report.cgroups)) for (const g of report.cgroups) pushRow(batch, 'cgroup', hostId, ts, cgroupRow(g));
  for (const p of report.processes) pushRow(batch, 'process', hostId, ts, processRow(p));
  for (const l of report.latency) pushRow(batch, 'latency', hostId, ts, latencyRow(l));
  for (const p of report.probes) pushRow(batch, 'probe', hostId, ts, probeRow(p));
  for (const s of report.servers ?? []) pushRow(batch, 'server', hostId, ts, serverRow(s));
}
