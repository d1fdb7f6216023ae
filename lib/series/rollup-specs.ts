import type { RowFilter } from './rollup-sql';

/**
 * What each gauge rollup folds: raw table → `<base>_1m` → `<base>_1h`, grouped by host, bucket and `keys`.
 * Every gauge becomes `<gauge>_avg` and `<gauge>_max`; `counts` are summed (e.g. successful probes).
 */
export interface GaugeRollupSpec {
  base: string;
  raw: string;
  keys: readonly string[];
  gauges: readonly string[];
  /** Rollup column → raw expression summed into it. */
  counts?: Readonly<Record<string, string>>;
  /** The raw rows `filter` selects; defaults to the raw table filtered. */
  rawSource?: (filter: RowFilter) => string;
}

export const HOST_GAUGES = [
  'cpu_user_pct',
  'cpu_system_pct',
  'cpu_iowait_pct',
  'cpu_steal_pct',
  'cpu_idle_pct',
  'load1',
  'psi_cpu_some_avg10',
  'psi_io_some_avg10',
  'psi_mem_some_avg10',
  'cpu_steal_worst_cpu_pct',
] as const;

export const GAUGE_ROLLUPS: readonly GaugeRollupSpec[] = [
  {
    base: 'host_samples',
    raw: 'host_samples',
    keys: [],
    gauges: HOST_GAUGES,
    // Per-CPU rows would multiply rollup size by the CPU count; the question at 1m/1h is "was any CPU stolen
    // from", which the most-stolen CPU of each report answers.
    rawSource: (filter) => `(SELECT h.*, c.cpu_steal_worst_cpu_pct FROM host_samples h
      LEFT JOIN (SELECT host_id, ts, (SELECT max(s) FROM unnest(c0.steal_pct) s) AS cpu_steal_worst_cpu_pct
                   FROM cpu_sample_arrays c0 WHERE ${filter('c0')}) c USING (host_id, ts)
      WHERE ${filter('h')})`,
  },
  {
    base: 'disk_samples',
    raw: 'disk_samples',
    keys: ['device'],
    gauges: ['read_iops', 'write_iops', 'read_await_ms', 'write_await_ms', 'queue_depth', 'util_pct'],
  },
  {
    base: 'process_samples',
    raw: 'process_samples',
    keys: ['name'],
    gauges: ['cpu_cores', 'threads', 'voluntary_cs_per_s', 'nonvoluntary_cs_per_s'],
  },
  {
    base: 'cgroup_samples',
    raw: 'cgroup_samples',
    keys: ['path'],
    gauges: ['usage_cores', 'throttled_pct', 'throttled_ms_per_s'],
  },
  {
    base: 'probe',
    raw: 'probe_samples',
    keys: ['name'],
    gauges: ['connect_ms', 'response_ms'],
    counts: { ok_count: 'ok::int' },
  },
];
