import type { SeriesMetric, SeriesResolution } from '../protocol/read-api/series';

type Family = 'host' | 'cpu' | 'disk' | 'process' | 'cgroup' | 'probe';

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
}

const FAMILY: Record<Family, { raw: string; rollupBase: string; key: string | null }> = {
  host: { raw: 'host_samples', rollupBase: 'host_samples', key: null },
  cpu: { raw: 'cpu_samples', rollupBase: 'host_samples', key: 'cpu' },
  disk: { raw: 'disk_samples', rollupBase: 'disk_samples', key: 'device' },
  process: { raw: 'process_samples', rollupBase: 'process_samples', key: 'name' },
  cgroup: { raw: 'cgroup_samples', rollupBase: 'cgroup_samples', key: 'path' },
  probe: { raw: 'probe_samples', rollupBase: 'probe', key: 'name' },
};

function metric(family: Family, column: string, unit: string, rollupColumn = column): MetricSource {
  const f = FAMILY[family];
  // Per-CPU rows are not rolled up; rollups keep the most-stolen CPU of each report instead (see rollup-specs).
  const rollupKey = family === 'cpu' ? null : f.key;
  return { raw: f.raw, rollupBase: f.rollupBase, column, rollupColumn, key: f.key, rollupKey, unit };
}

export const METRIC_SOURCES: Record<SeriesMetric, MetricSource> = {
  cpu_user: metric('host', 'cpu_user_pct', '%'),
  cpu_system: metric('host', 'cpu_system_pct', '%'),
  cpu_iowait: metric('host', 'cpu_iowait_pct', '%'),
  cpu_steal: metric('host', 'cpu_steal_pct', '%'),
  cpu_idle: metric('host', 'cpu_idle_pct', '%'),
  load1: metric('host', 'load1', 'runnable tasks'),
  psi_cpu: metric('host', 'psi_cpu_some_avg10', '%'),
  psi_io: metric('host', 'psi_io_some_avg10', '%'),
  psi_memory: metric('host', 'psi_mem_some_avg10', '%'),
  cpu_steal_per_cpu: metric('cpu', 'steal_pct', '%', 'cpu_steal_worst_cpu_pct'),
  disk_queue_depth: metric('disk', 'queue_depth', 'requests'),
  disk_read_await: metric('disk', 'read_await_ms', 'ms'),
  disk_write_await: metric('disk', 'write_await_ms', 'ms'),
  disk_util: metric('disk', 'util_pct', '%'),
  disk_read_iops: metric('disk', 'read_iops', 'IO/s'),
  disk_write_iops: metric('disk', 'write_iops', 'IO/s'),
  process_cpu: metric('process', 'cpu_cores', 'cores'),
  process_threads: metric('process', 'threads', 'threads'),
  process_voluntary_cs: metric('process', 'voluntary_cs_per_s', '/s'),
  process_nonvoluntary_cs: metric('process', 'nonvoluntary_cs_per_s', '/s'),
  cgroup_throttled_pct: metric('cgroup', 'throttled_pct', '%'),
  cgroup_throttled_ms: metric('cgroup', 'throttled_ms_per_s', 'ms/s'),
  probe_connect: metric('probe', 'connect_ms', 'ms'),
  probe_response: metric('probe', 'response_ms', 'ms'),
};

/** SELECT list pieces (key, weighted sum, weight, max) of one segment of a metric. */
export function segmentColumns(source: MetricSource, resolution: SeriesResolution) {
  if (resolution === 'raw') {
    return {
      table: source.raw,
      key: source.key ? `${source.key}::text` : 'NULL::text',
      sum: `sum(${source.column})::float8`,
      weight: `count(${source.column})::float8`,
      max: `max(${source.column})::float8`,
    };
  }
  const c = source.rollupColumn;
  return {
    table: `${source.rollupBase}_${resolution}`,
    key: source.rollupKey ? `${source.rollupKey}::text` : source.key ? `'worst'::text` : 'NULL::text',
    sum: `sum(${c}_avg * samples)::float8`,
    weight: `sum(samples) FILTER (WHERE ${c}_avg IS NOT NULL)::float8`,
    max: `max(${c}_max)::float8`,
  };
}
