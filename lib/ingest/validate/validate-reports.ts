import { InvalidPayloadError } from '../../errors';
import { isUnavailable, parseIngestBody, type Report } from '../../protocol';
import type { ErrorDetail } from '../../protocol/errors';
import { DAY_MS, MINUTE_MS } from '../../protocol/time';
import { canonicalTags } from '../write/report-rows';

export interface TimeWindow {
  nowMs: number;
  maxFutureMs: number;
  maxAgeMs: number;
}

const INT2_MAX = 32_767;
const INT4_MAX = 2_147_483_647;
const MAX_DETAILS = 20;

class Issues {
  readonly details: ErrorDetail[] = [];
  add(path: string, message: string): void {
    if (this.details.length < MAX_DETAILS) this.details.push({ path, message });
  }
}

function checkUnique<T>(issues: Issues, items: readonly T[], base: string, field: string, keyOf: (item: T) => string): void {
  if (items.length < 2) return;
  const seen = new Set<string>();
  items.forEach((item, i) => {
    const key = keyOf(item);
    if (seen.has(key)) issues.add(`${base}.${i}.${field}`, `duplicate ${field} ${JSON.stringify(key)} in one report`);
    seen.add(key);
  });
}

function checkMax(issues: Issues, value: number | null | undefined, max: number, path: string): void {
  if (value != null && value > max) issues.add(path, `must be at most ${max}`);
}

// Rules zod cannot see: what would break a primary key or a column type must be refused before it reaches a batch.
function checkStorable(issues: Issues, report: Report, p: string): void {
  if (!isUnavailable(report.cpu)) {
    const cpu = report.cpu;
    checkMax(issues, cpu.onlineCpus, INT2_MAX, `${p}cpu.onlineCpus`);
    checkMax(issues, cpu.procsRunning, INT4_MAX, `${p}cpu.procsRunning`);
    checkMax(issues, cpu.procsBlocked, INT4_MAX, `${p}cpu.procsBlocked`);
    cpu.perCpu.forEach((row, i) => checkMax(issues, row.cpu, INT2_MAX, `${p}cpu.perCpu.${i}.cpu`));
    checkUnique(issues, cpu.perCpu, `${p}cpu.perCpu`, 'cpu', (row) => String(row.cpu));
  }
  if (!isUnavailable(report.disks)) {
    report.disks.forEach((d, i) => checkMax(issues, d.inFlight, INT4_MAX, `${p}disks.${i}.inFlight`));
    checkUnique(issues, report.disks, `${p}disks`, 'device', (d) => d.device);
  }
  if (!isUnavailable(report.cgroups)) checkUnique(issues, report.cgroups, `${p}cgroups`, 'path', (g) => g.path);
  report.processes.forEach((proc, i) => {
    checkMax(issues, proc.pid, INT4_MAX, `${p}processes.${i}.pid`);
    checkMax(issues, proc.threads, INT4_MAX, `${p}processes.${i}.threads`);
  });
  checkUnique(issues, report.processes, `${p}processes`, 'pid', (proc) => `${proc.name}/${proc.pid}`);
  checkUnique(issues, report.latency, `${p}latency`, 'tags', (l) => `${l.name} ${canonicalTags(l.tags)}`);
  checkUnique(issues, report.probes, `${p}probes`, 'name', (probe) => probe.name);
  report.servers?.forEach((server, i) => checkMax(issues, server.droppedSeries, INT4_MAX, `${p}servers.${i}.droppedSeries`));
  checkMax(issues, report.agent.droppedReports, INT4_MAX, `${p}agent.droppedReports`);
  checkMax(issues, report.agent.malformedStatsdPackets, INT4_MAX, `${p}agent.malformedStatsdPackets`);
}

/** Semantic checks over already schema-valid reports; throws 400 invalid_payload naming every offending field. */
export function checkReports(reports: readonly Report[], isBatch: boolean, window: TimeWindow): void {
  const issues = new Issues();
  const seqs = new Set<number>();
  const timestamps = new Set<number>();
  reports.forEach((report, i) => {
    const p = isBatch ? `reports.${i}.` : '';
    if (report.ts > window.nowMs + window.maxFutureMs) {
      issues.add(`${p}ts`, `ts ${new Date(report.ts).toISOString()} is more than ${window.maxFutureMs / MINUTE_MS} minutes in the future`);
    } else if (report.ts < window.nowMs - window.maxAgeMs) {
      issues.add(`${p}ts`, `ts ${new Date(report.ts).toISOString()} is older than raw retention (${window.maxAgeMs / DAY_MS} days)`);
    }
    if (seqs.has(report.seq)) issues.add(`${p}seq`, `seq ${report.seq} appears more than once in this request`);
    seqs.add(report.seq);
    if (timestamps.has(report.ts)) issues.add(`${p}ts`, `ts ${report.ts} appears more than once in this request`);
    timestamps.add(report.ts);
    checkStorable(issues, report, p);
  });
  const first = issues.details[0];
  if (first) throw new InvalidPayloadError(`invalid ${first.path}: ${first.message}`, issues.details);
}

/** Schema (zod, with batch-prefixed field paths) then semantic checks. */
export function validateReports(body: unknown, window: TimeWindow): Report[] {
  const reports = parseIngestBody(body);
  const isBatch = typeof body === 'object' && body !== null && 'reports' in body;
  checkReports(reports, isBatch, window);
  return reports;
}
