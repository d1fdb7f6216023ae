/** Tables managed by raw SQL migrations (partitioned, COPY-written), invisible to the Prisma schema. */
export const SERIES_TABLES = [
  'report_ledger',
  'host_samples',
  'cpu_samples',
  'disk_samples',
  'cgroup_samples',
  'process_samples',
  'latency_samples',
  'probe_samples',
] as const;
