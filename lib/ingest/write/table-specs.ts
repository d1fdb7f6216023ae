/** How a value is written: COPY text needs no type, `unnest` needs the array type of each column. */
export type ColumnType =
  | 'int2' | 'int4' | 'int8' | 'float4' | 'float8' | 'text' | 'bool' | 'timestamptz'
  | 'int2[]' | 'int4[]' | 'float4[]' | 'float8[]' | 'text[]';

export interface TableSpec {
  table: string;
  columns: readonly string[];
  types: readonly ColumnType[];
}

function spec(table: string, columns: [string, ColumnType][]): TableSpec {
  return { table, columns: columns.map(([name]) => name), types: columns.map(([, type]) => type) };
}

const f4 = 'float4' as const;
const f4a = 'float4[]' as const;
const f8a = 'float8[]' as const;

export const LEDGER = spec('report_ledger', [
  ['host_id', 'int4'],
  ['seq', 'int8'],
  ['ts', 'timestamptz'],
]);

export const SERIES_SPECS = {
  host: spec('host_samples', [
    ['host_id', 'int4'], ['ts', 'timestamptz'], ['interval_ms', 'int4'],
    ['cpu_user_pct', f4], ['cpu_nice_pct', f4], ['cpu_system_pct', f4], ['cpu_iowait_pct', f4],
    ['cpu_irq_pct', f4], ['cpu_softirq_pct', f4], ['cpu_steal_pct', f4], ['cpu_idle_pct', f4],
    ['online_cpus', 'int2'], ['ctxt_per_s', f4], ['load1', f4], ['load5', f4], ['load15', f4],
    ['procs_running', 'int4'], ['procs_blocked', 'int4'],
    ['psi_cpu_some_avg10', f4], ['psi_cpu_some_pct', f4],
    ['psi_io_some_avg10', f4], ['psi_io_some_pct', f4], ['psi_io_full_avg10', f4], ['psi_io_full_pct', f4],
    ['psi_mem_some_avg10', f4], ['psi_mem_some_pct', f4], ['psi_mem_full_avg10', f4], ['psi_mem_full_pct', f4],
    ['dropped_reports', 'int4'], ['malformed_statsd', 'int4'],
  ]),
  // One row per report: each column holds the report's CPUs in order (read one row per CPU from the view cpu_samples).
  cpu: spec('cpu_sample_arrays', [
    ['host_id', 'int4'], ['ts', 'timestamptz'], ['cpu', 'int2[]'],
    ['user_pct', f4a], ['nice_pct', f4a], ['system_pct', f4a], ['iowait_pct', f4a],
    ['irq_pct', f4a], ['softirq_pct', f4a], ['steal_pct', f4a], ['idle_pct', f4a],
  ]),
  // One row per report, like the CPUs: each column holds the report's disks in order (the view disk_samples reads them).
  disk: spec('disk_sample_arrays', [
    ['host_id', 'int4'], ['ts', 'timestamptz'], ['device', 'text[]'],
    ['read_iops', f4a], ['write_iops', f4a], ['read_bytes_per_s', f8a], ['write_bytes_per_s', f8a],
    ['read_await_ms', f4a], ['write_await_ms', f4a], ['queue_depth', f4a], ['in_flight', 'int4[]'], ['util_pct', f4a],
  ]),
  cgroup: spec('cgroup_samples', [
    ['host_id', 'int4'], ['ts', 'timestamptz'], ['path', 'text'],
    ['quota_cores', f4], ['effective_cpus', f4], ['usage_cores', f4],
    ['throttled_periods_per_s', f4], ['throttled_pct', f4], ['throttled_ms_per_s', f4],
  ]),
  process: spec('process_samples', [
    ['host_id', 'int4'], ['ts', 'timestamptz'], ['name', 'text'], ['pid', 'int4'], ['threads', 'int4'],
    ['cpu_cores', f4], ['rss_bytes', 'float8'], ['voluntary_cs_per_s', f4], ['nonvoluntary_cs_per_s', f4],
  ]),
  latency: spec('latency_samples', [
    ['host_id', 'int4'], ['ts', 'timestamptz'], ['name', 'text'], ['tags', 'text'],
    ['count', 'int8'], ['sum', 'float8'], ['min', 'float8'], ['max', 'float8'], ['zero_count', 'int8'],
    ['keys', 'int2[]'], ['counts', 'int4[]'],
  ]),
  probe: spec('probe_samples', [
    ['host_id', 'int4'], ['ts', 'timestamptz'], ['name', 'text'], ['target', 'text'],
    ['ok', 'bool'], ['connect_ms', f4], ['response_ms', f4], ['error', 'text'],
  ]),
} as const;

export type SeriesKind = keyof typeof SERIES_SPECS;
export const SERIES_KINDS = Object.keys(SERIES_SPECS) as SeriesKind[];
