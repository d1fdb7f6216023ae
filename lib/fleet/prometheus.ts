import type { FleetSummary } from '../protocol/read-api/fleet';
import type { RollupBacklog } from '../series';

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** A label value in the text exposition format: backslash, double quote and newline escaped. */
export function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

interface Family {
  name: string;
  help: string;
  lines: string[];
}

/** The fleet summary as Prometheus text exposition (format 0.0.4): per-host gauges and fleet counts. */
export function renderFleetMetrics(summary: FleetSummary): string {
  const nowMs = Date.parse(summary.generatedAt);
  const up = gauge('inferwatch_host_up', 'Whether the host reported within the stale window (1) or not (0).');
  const steal = gauge('inferwatch_host_cpu_steal_ratio', 'CPU time stolen by the hypervisor in the newest report (0-1).');
  const iowait = gauge('inferwatch_host_cpu_iowait_ratio', 'CPU time idle waiting for I/O in the newest report (0-1).');
  const age = gauge('inferwatch_host_last_seen_age_seconds', 'Seconds since the host last reported.');
  const hosts = gauge('inferwatch_hosts', 'Hosts known to inferwatch, by status.');
  const counts = { ok: 0, stale: 0, never_reported: 0 };
  for (const host of summary.hosts) {
    counts[host.status]++;
    const labels = `{host="${escapeLabel(host.hostname)}",host_id="${host.id}",region="${escapeLabel(host.region)}"}`;
    up.lines.push(`${up.name}${labels} ${host.status === 'ok' ? 1 : 0}`);
    if (host.latest?.stealPct != null) steal.lines.push(`${steal.name}${labels} ${host.latest.stealPct / 100}`);
    if (host.latest?.iowaitPct != null) iowait.lines.push(`${iowait.name}${labels} ${host.latest.iowaitPct / 100}`);
    if (host.lastSeenAt) age.lines.push(`${age.name}${labels} ${Math.max(0, (nowMs - Date.parse(host.lastSeenAt)) / 1000)}`);
  }
  for (const [status, n] of Object.entries(counts)) hosts.lines.push(`${hosts.name}{status="${status}"} ${n}`);
  return renderGauges([up, steal, iowait, age, hosts]);
}

/**
 * How far the rollups are behind now. In steady state the 1 m watermark is 90–165 s old (a minute is rolled once it
 * has settled, by a pass every 15 s) and the 1 h one up to an hour more; ages or a late queue that keep growing mean
 * the rollups are falling behind.
 */
export function renderRollupMetrics(backlog: RollupBacklog, now: Date): string {
  const age = gauge(
    'inferwatch_rollup_watermark_age_seconds',
    'Seconds since the end of the newest rolled-up bucket, per resolution.',
  );
  for (const [resolution, mark] of Object.entries(backlog.watermarks)) {
    age.lines.push(`${age.name}{resolution="${resolution}"} ${(now.getTime() - mark.getTime()) / 1000}`);
  }
  const queued = gauge(
    'inferwatch_rollup_late_buckets_queued',
    '(host, minute) buckets holding late reports, waiting to be rolled up again.',
  );
  queued.lines.push(`${queued.name} ${backlog.lateBucketsQueued}`);
  return renderGauges([age, queued]);
}

export interface OpenFindingCount {
  ruleId: string;
  severity: string;
  region: string;
  count: number;
}

/** Open findings by rule, severity and region: alert on `inferwatch_findings_open{severity="critical"} > 0`. */
export function renderFindingMetrics(counts: readonly OpenFindingCount[]): string {
  const open = gauge('inferwatch_findings_open', 'Open findings (misconfigurations and conditions), by rule, severity and region.');
  for (const c of counts) {
    open.lines.push(`${open.name}{rule="${escapeLabel(c.ruleId)}",severity="${escapeLabel(c.severity)}",region="${escapeLabel(c.region)}"} ${c.count}`);
  }
  return renderGauges([open]);
}

function gauge(name: string, help: string): Family {
  return { name, help, lines: [] };
}

function renderGauges(families: Family[]): string {
  return families
    .map((f) => [`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} gauge`, ...f.lines].join('\n'))
    .join('\n')
    .concat('\n');
}
