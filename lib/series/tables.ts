import type { SeriesMetric } from '../protocol/read-api/series';

/**
 * The series tables, defined once: COPY and `unnest` writers, rollups, read queries and prisma/series-tables.ts derive
 * from here. The SQL migrations must agree (tests/integration/schema-agreement.test.ts); a new column is a migration,
 * its line here and its value in lib/ingest/write/report-rows.ts, which the compiler then asks for.
 */
export type ColumnType =
  | 'int2' | 'int4' | 'int8' | 'float4' | 'float8' | 'text' | 'bool' | 'timestamptz'
  | 'int2[]' | 'int4[]' | 'float4[]' | 'float8[]' | 'text[]';

export interface Column<Name extends string = string> {
  name: Name;
  type: ColumnType;
  /** Kept in the 1-minute and 1-hour rollups as `<name>_avg` and `<name>_max`. */
  gauge?: boolean;
  /** Served by GET /api/v1/hosts/:id/series under this name. */
  metric?: { name: SeriesMetric; unit: string; rolledUpAs?: DerivedGauge };
  /** Filled by the database's DEFAULT; writers leave it out. */
  defaulted?: boolean;
}

/** A gauge a rollup computes from another table's rows of the same report, rather than one of its own columns. */
export interface DerivedGauge {
  /** The rollup (by base) that keeps it, and its column prefix there. */
  base: string;
  name: string;
  /** Its value for one report, from the arrays row aliased `arrays`. */
  perReport(arrays: string): string;
}

/** Which source rows a rollup statement reads, as a condition over the row alias. */
export type RowFilter = (alias: string) => string;

export interface GaugeRollup {
  kind: 'gauges';
  /** Rollup tables are `<base>_1m` and `<base>_1h`. */
  base: string;
  /** Rollup column → raw expression summed into it (e.g. successful probes). */
  counts?: Readonly<Record<string, string>>;
  derived?: readonly DerivedGauge[];
  /** The raw rows `filter` selects, when they are more than the table's own. */
  source?: (filter: RowFilter) => string;
}

export interface HistogramRollup {
  kind: 'histograms';
  /** Per-host rollups `<base>_1m`/`_1h`, and per region `<byRegion>_1m`/`_1h`, grouped by `keys`. */
  base: string;
  byRegion: string;
  keys: readonly string[];
  /** PostgreSQL types of rollup columns wider than the raw one: the rollups sum many intervals and hosts. */
  widened: Readonly<Record<string, string>>;
}

export interface SeriesTable<Name extends string = string> {
  /** The table ingest writes: daily partitions keyed (host_id, ts, …); host_id and ts come before `columns`. */
  name: string;
  columns: readonly Column<Name>[];
  /** A view with one row per array element (per CPU, per disk), for tables that store a report's items as arrays. */
  view?: string;
  /** What tells one host's series of this table apart (a device, a process name); none for host-wide values. */
  key?: Name;
  rollup?: GaugeRollup | HistogramRollup;
}

const col = <N extends string>(name: N, type: ColumnType, more: Omit<Column, 'name' | 'type'> = {}): Column<N> => ({ name, type, ...more });
const gauge = <N extends string>(name: N, type: ColumnType, metric?: SeriesMetric, unit = ''): Column<N> =>
  col(name, type, { gauge: true, ...(metric ? { metric: { name: metric, unit } } : {}) });
const table = <N extends string>(definition: SeriesTable<N>): SeriesTable<N> => definition;

/** Per-CPU rows would multiply rollups by the CPU count; whether any CPU was stolen from is kept as the most-stolen one. */
const WORST_CPU_STEAL: DerivedGauge = {
  base: 'host_samples',
  name: 'cpu_steal_worst_cpu_pct',
  perReport: (arrays) => `(SELECT max(s) FROM unnest(${arrays}.steal_pct) s)`,
};

const HOST = table({
  name: 'host_samples',
  columns: [
    col('interval_ms', 'int4'),
    gauge('cpu_user_pct', 'float4', 'cpu_user', '%'),
    col('cpu_nice_pct', 'float4'),
    gauge('cpu_system_pct', 'float4', 'cpu_system', '%'),
    gauge('cpu_iowait_pct', 'float4', 'cpu_iowait', '%'),
    col('cpu_irq_pct', 'float4'),
    col('cpu_softirq_pct', 'float4'),
    gauge('cpu_steal_pct', 'float4', 'cpu_steal', '%'),
    gauge('cpu_idle_pct', 'float4', 'cpu_idle', '%'),
    col('online_cpus', 'int2'),
    col('ctxt_per_s', 'float4'),
    gauge('load1', 'float4', 'load1', 'runnable tasks'),
    col('load5', 'float4'),
    col('load15', 'float4'),
    col('procs_running', 'int4'),
    col('procs_blocked', 'int4'),
    gauge('psi_cpu_some_avg10', 'float4', 'psi_cpu', '%'),
    col('psi_cpu_some_pct', 'float4'),
    gauge('psi_io_some_avg10', 'float4', 'psi_io', '%'),
    col('psi_io_some_pct', 'float4'),
    col('psi_io_full_avg10', 'float4'),
    col('psi_io_full_pct', 'float4'),
    gauge('psi_mem_some_avg10', 'float4', 'psi_memory', '%'),
    col('psi_mem_some_pct', 'float4'),
    col('psi_mem_full_avg10', 'float4'),
    col('psi_mem_full_pct', 'float4'),
    col('dropped_reports', 'int4'),
    col('malformed_statsd', 'int4'),
  ],
  rollup: {
    kind: 'gauges',
    base: 'host_samples',
    derived: [WORST_CPU_STEAL],
    source: (filter) => `(SELECT h.*, c.${WORST_CPU_STEAL.name} FROM host_samples h
      LEFT JOIN (SELECT host_id, ts, ${WORST_CPU_STEAL.perReport('c0')} AS ${WORST_CPU_STEAL.name}
                   FROM ${CPU.name} c0 WHERE ${filter('c0')}) c USING (host_id, ts)
      WHERE ${filter('h')})`,
  },
});

// One row per report: each column holds the report's CPUs in order.
const CPU = table({
  name: 'cpu_sample_arrays',
  view: 'cpu_samples',
  key: 'cpu',
  columns: [
    col('cpu', 'int2[]'),
    col('user_pct', 'float4[]'),
    col('nice_pct', 'float4[]'),
    col('system_pct', 'float4[]'),
    col('iowait_pct', 'float4[]'),
    col('irq_pct', 'float4[]'),
    col('softirq_pct', 'float4[]'),
    col('steal_pct', 'float4[]', { metric: { name: 'cpu_steal_per_cpu', unit: '%', rolledUpAs: WORST_CPU_STEAL } }),
    col('idle_pct', 'float4[]'),
  ],
});

// One row per report, like the CPUs: each column holds the report's disks in order.
const DISK = table({
  name: 'disk_sample_arrays',
  view: 'disk_samples',
  key: 'device',
  columns: [
    col('device', 'text[]'),
    gauge('read_iops', 'float4[]', 'disk_read_iops', 'IO/s'),
    gauge('write_iops', 'float4[]', 'disk_write_iops', 'IO/s'),
    gauge('read_bytes_per_s', 'float8[]', 'disk_read_bytes', 'B/s'),
    gauge('write_bytes_per_s', 'float8[]', 'disk_write_bytes', 'B/s'),
    gauge('read_await_ms', 'float4[]', 'disk_read_await', 'ms'),
    gauge('write_await_ms', 'float4[]', 'disk_write_await', 'ms'),
    gauge('queue_depth', 'float4[]', 'disk_queue_depth', 'requests'),
    col('in_flight', 'int4[]'),
    gauge('util_pct', 'float4[]', 'disk_util', '%'),
  ],
  rollup: { kind: 'gauges', base: 'disk_samples' },
});

const CGROUP = table({
  name: 'cgroup_samples',
  key: 'path',
  columns: [
    col('path', 'text'),
    col('quota_cores', 'float4'),
    col('effective_cpus', 'float4'),
    gauge('usage_cores', 'float4'),
    col('throttled_periods_per_s', 'float4'),
    gauge('throttled_pct', 'float4', 'cgroup_throttled_pct', '%'),
    gauge('throttled_ms_per_s', 'float4', 'cgroup_throttled_ms', 'ms/s'),
  ],
  rollup: { kind: 'gauges', base: 'cgroup_samples' },
});

const PROCESS = table({
  name: 'process_samples',
  key: 'name',
  columns: [
    col('name', 'text'),
    col('pid', 'int4'),
    gauge('threads', 'int4', 'process_threads', 'threads'),
    gauge('cpu_cores', 'float4', 'process_cpu', 'cores'),
    col('rss_bytes', 'float8'),
    gauge('voluntary_cs_per_s', 'float4', 'process_voluntary_cs', '/s'),
    gauge('nonvoluntary_cs_per_s', 'float4', 'process_nonvoluntary_cs', '/s'),
  ],
  rollup: { kind: 'gauges', base: 'process_samples' },
});

const LATENCY = table({
  name: 'latency_samples',
  columns: [
    col('name', 'text'),
    col('tags', 'text'),
    col('count', 'int8'),
    col('sum', 'float8'),
    col('min', 'float8'),
    col('max', 'float8'),
    col('zero_count', 'int8'),
    col('keys', 'int2[]'),
    col('counts', 'int4[]'),
    // Per key, the error of a model server's bucket (Infinity: its open top bucket); NULL for the agent's own sketch.
    col('bucket_errors', 'float4[]'),
  ],
  rollup: { kind: 'histograms', base: 'latency', byRegion: 'latency_region', keys: ['name', 'tags'], widened: { counts: 'bigint[]' } },
});

const PROBE = table({
  name: 'probe_samples',
  key: 'name',
  columns: [
    col('name', 'text'),
    col('target', 'text'),
    col('ok', 'bool'),
    gauge('connect_ms', 'float4', 'probe_connect', 'ms'),
    gauge('response_ms', 'float4', 'probe_response', 'ms'),
    col('error', 'text'),
  ],
  rollup: { kind: 'gauges', base: 'probe', counts: { ok_count: 'ok::int' } },
});

// One row per scraped model server per report (the agent's --scrape).
const SERVER = table({
  name: 'server_samples',
  key: 'name',
  columns: [
    col('name', 'text'),
    col('ok', 'bool'),
    gauge('requests_per_s', 'float4', 'server_requests', 'req/s'),
    gauge('latency_mean_ms', 'float4', 'server_latency_mean', 'ms'),
    gauge('queue_mean_ms', 'float4', 'server_queue_mean', 'ms'),
    gauge('waiting', 'float4', 'server_waiting', 'requests'),
    gauge('running', 'float4', 'server_running', 'requests'),
    gauge('batch_size', 'float4', 'server_batch_size', 'requests'),
    col('dropped_series', 'int4'),
    col('error', 'text'),
    gauge('token_mean_ms', 'float4', 'server_token_mean', 'ms'),
    gauge('kv_cache_pct', 'float4', 'server_kv_cache', '%'),
    gauge('preemptions_per_min', 'float4', 'server_preemptions', '/min'),
  ],
  rollup: { kind: 'gauges', base: 'server_samples', counts: { ok_count: 'ok::int' } },
});

/** Every series table by the kind of row it holds, in the order a flush writes them. */
export const TABLES = {
  host: HOST,
  cpu: CPU,
  disk: DISK,
  cgroup: CGROUP,
  process: PROCESS,
  latency: LATENCY,
  probe: PROBE,
  server: SERVER,
} as const;

export type SeriesKind = keyof typeof TABLES;
export const SERIES_KINDS = Object.keys(TABLES) as SeriesKind[];
export type ColumnOf<K extends SeriesKind> = (typeof TABLES)[K]['columns'][number]['name'];

/** The dedupe ledger: one row per stored report, keyed (host_id, seq); written first in every flush. */
export const REPORT_LEDGER = {
  name: 'report_ledger',
  columns: [col('host_id', 'int4'), col('seq', 'int8'), col('ts', 'timestamptz'), col('received_at', 'timestamptz', { defaulted: true })],
} as const;

/** host_id and ts, then the table's own columns: the order COPY and `unnest` write. */
export function storedColumns(t: SeriesTable): Column[] {
  return [col('host_id', 'int4'), col('ts', 'timestamptz'), ...t.columns];
}

/** The table readers select one row per item from: its view of the arrays, or itself. */
const readTableOf = (t: SeriesTable): string => t.view ?? t.name;

/** One gauge rollup per table that has one: raw rows → `<base>_1m` → `<base>_1h`, grouped by host, bucket and key. */
export interface GaugeRollupSpec {
  base: string;
  raw: string;
  keys: readonly string[];
  gauges: readonly string[];
  counts?: Readonly<Record<string, string>>;
  rawSource?: (filter: RowFilter) => string;
}

export const GAUGE_ROLLUPS: readonly GaugeRollupSpec[] = Object.values(TABLES).flatMap((t: SeriesTable) =>
  t.rollup?.kind === 'gauges'
    ? [{
        base: t.rollup.base,
        raw: readTableOf(t),
        keys: t.key ? [t.key] : [],
        gauges: [...t.columns.filter((c) => c.gauge).map((c) => c.name), ...(t.rollup.derived ?? []).map((d) => d.name)],
        counts: t.rollup.counts,
        rawSource: t.rollup.source,
      }]
    : [],
);

const HISTOGRAM_ROLLUP = LATENCY.rollup as HistogramRollup;
/** The histogram columns every latency table shares after its keys: count, sum, min, max, zero_count, keys, counts. */
export const HISTOGRAM_COLUMNS = LATENCY.columns.map((c) => c.name).filter((name) => !HISTOGRAM_ROLLUP.keys.includes(name));

/** Every rollup base: `<base>_1m` (daily partitions) and `<base>_1h` (monthly partitions). */
export const ROLLUP_BASES = [...GAUGE_ROLLUPS.map((r) => r.base), HISTOGRAM_ROLLUP.base, HISTOGRAM_ROLLUP.byRegion];

/**
 * Each host's latency quantiles per minute, from its `<base>_1m` histograms merged per series name (tags together) and
 * over all its series (`name` ALL_SERIES): a 1-minute rollup (daily partitions) without an hourly level.
 */
export const MINUTE_QUANTILES = {
  table: 'latency_quantiles_1m',
  allSeries: '',
  quantiles: { p50: 0.5, p95: 0.95, p99: 0.99 },
} as const;
export type MinuteQuantile = keyof typeof MINUTE_QUANTILES.quantiles;

export interface MetricSource {
  /** Table at raw resolution, and the rollup base (`<base>_1m`, `<base>_1h`). */
  raw: string;
  rollupBase: string;
  /** Raw column, and its rollup column prefix (`<prefix>_avg`, `<prefix>_max`). */
  column: string;
  rollupColumn: string;
  /** Series key at raw resolution and in rollups (null: one series per host). */
  key: string | null;
  rollupKey: string | null;
  unit: string;
  /** A metric whose rollups fold a report's items into one value (the most-stolen CPU) reads raw rows that way too. */
  rolledUpAs?: { table: string; gauge: DerivedGauge };
}

function metricSources(): Record<SeriesMetric, MetricSource> {
  const sources: Partial<Record<SeriesMetric, MetricSource>> = {};
  for (const t of Object.values(TABLES) as SeriesTable[]) {
    for (const c of t.columns) {
      if (!c.metric) continue;
      if (sources[c.metric.name]) throw new Error(`series metric ${c.metric.name} is defined twice`);
      const folded = c.metric.rolledUpAs;
      sources[c.metric.name] = {
        raw: readTableOf(t),
        rollupBase: folded?.base ?? (t.rollup as GaugeRollup).base,
        column: c.name,
        rollupColumn: folded?.name ?? c.name,
        key: t.key ?? null,
        rollupKey: folded ? null : (t.key ?? null),
        unit: c.metric.unit,
        ...(folded ? { rolledUpAs: { table: t.name, gauge: folded } } : {}),
      };
    }
  }
  return sources as Record<SeriesMetric, MetricSource>;
}

/** Where each metric of the read API is stored, raw and rolled up. */
export const METRIC_SOURCES = metricSources();
