import type { CpuBreakdown, DiskSample, LatencySeries, PerCpu, Report } from '../../protocol';
import { isUnavailable } from '../../protocol';
import { SERIES_KINDS, SERIES_SPECS, type SeriesKind } from './table-specs';

export type CellValue = number | string | boolean | null | number[] | string[];

/** Rows of one table, flat and row-major (row i is values[i·width … (i+1)·width)): cheap to append and to encode. */
export interface TableRows {
  width: number;
  values: CellValue[];
}

export type RowBatch = Record<SeriesKind, TableRows>;

export function emptyRowBatch(): RowBatch {
  const batch = {} as RowBatch;
  for (const kind of SERIES_KINDS) batch[kind] = { width: SERIES_SPECS[kind].columns.length, values: [] };
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

function pushBreakdown(out: CellValue[], b: CpuBreakdown): void {
  out.push(b.userPct, b.nicePct, b.systemPct, b.iowaitPct, b.irqPct, b.softirqPct, b.stealPct, b.idlePct);
}

function pushPressure(out: CellValue[], report: Report): void {
  const pressure = isUnavailable(report.pressure) ? null : report.pressure;
  const cpu = pressure && !isUnavailable(pressure.cpu) ? pressure.cpu : null;
  const io = pressure && !isUnavailable(pressure.io) ? pressure.io : null;
  const memory = pressure && !isUnavailable(pressure.memory) ? pressure.memory : null;
  out.push(cpu?.some.avg10 ?? null, cpu?.some.stallPct ?? null);
  out.push(io?.some.avg10 ?? null, io?.some.stallPct ?? null, io?.full?.avg10 ?? null, io?.full?.stallPct ?? null);
  out.push(memory?.some.avg10 ?? null, memory?.some.stallPct ?? null, memory?.full?.avg10 ?? null, memory?.full?.stallPct ?? null);
}

// The columns of cpu_sample_arrays after host_id and ts, in order.
const PER_CPU_FIELDS = [
  'cpu', 'userPct', 'nicePct', 'systemPct', 'iowaitPct', 'irqPct', 'softirqPct', 'stealPct', 'idlePct',
] as const satisfies readonly (keyof PerCpu)[];

/** The per-CPU rows as one array per column, in the report's CPU order. */
function perCpuColumns(perCpu: readonly PerCpu[]): number[][] {
  return PER_CPU_FIELDS.map((field) => perCpu.map((row) => row[field]));
}

// The columns of disk_sample_arrays after host_id and ts, in order.
const DISK_FIELDS = [
  'device', 'readIops', 'writeIops', 'readBytesPerS', 'writeBytesPerS', 'readAwaitMs', 'writeAwaitMs', 'queueDepth',
  'inFlight', 'utilPct',
] as const satisfies readonly (keyof DiskSample)[];

/** The disks as one array per column, in the report's order. */
function diskColumns(disks: readonly DiskSample[]): (number[] | string[])[] {
  return DISK_FIELDS.map((field) => disks.map((disk) => disk[field]) as number[] | string[]);
}

/** Appends the series rows of one validated report; the host comes from the token, never from the report. */
export function appendReportRows(batch: RowBatch, hostId: number, report: Report): void {
  const ts = new Date(report.ts).toISOString();
  const cpu = isUnavailable(report.cpu) ? null : report.cpu;

  const host = batch.host.values;
  host.push(hostId, ts, report.intervalMs);
  if (cpu) pushBreakdown(host, cpu.total);
  else host.push(null, null, null, null, null, null, null, null);
  host.push(cpu?.onlineCpus ?? null, cpu?.contextSwitchesPerS ?? null, cpu?.load1 ?? null, cpu?.load5 ?? null);
  host.push(cpu?.load15 ?? null, cpu?.procsRunning ?? null, cpu?.procsBlocked ?? null);
  pushPressure(host, report);
  host.push(report.agent.droppedReports, report.agent.malformedStatsdPackets);

  if (cpu && cpu.perCpu.length > 0) batch.cpu.values.push(hostId, ts, ...perCpuColumns(cpu.perCpu));
  if (!isUnavailable(report.disks) && report.disks.length > 0) batch.disk.values.push(hostId, ts, ...diskColumns(report.disks));
  if (!isUnavailable(report.cgroups)) {
    const out = batch.cgroup.values;
    for (const g of report.cgroups) {
      out.push(hostId, ts, g.path, g.quotaCores, g.effectiveCpus, g.usageCores);
      out.push(g.throttledPeriodsPerS, g.throttledPct, g.throttledMsPerS);
    }
  }
  const processes = batch.process.values;
  for (const p of report.processes) {
    processes.push(hostId, ts, p.name, p.pid, p.threads, p.cpuCores, p.rssBytes);
    processes.push(p.voluntaryCtxSwitchesPerS, p.nonvoluntaryCtxSwitchesPerS);
  }
  const latency = batch.latency.values;
  for (const l of report.latency) {
    const s = l.sketch;
    latency.push(hostId, ts, l.name, canonicalTags(l.tags), s.count, s.sum, s.min, s.max, s.zeroCount, s.keys, s.counts);
  }
  const probes = batch.probe.values;
  for (const p of report.probes) {
    probes.push(hostId, ts, p.name, p.target, p.ok, p.connectMs, p.responseMs, p.error);
  }
}
