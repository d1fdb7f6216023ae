import { MINUTE_QUANTILES, REPORT_LEDGER, ROLLUP_BASES, SERIES_KINDS, TABLES } from '../lib/series/tables';

/** Raw series tables: daily partitions, written by ingest (COPY), kept INFERWATCH_RETENTION_RAW_DAYS. */
export const RAW_SERIES_TABLES = [REPORT_LEDGER.name, ...SERIES_KINDS.map((kind) => TABLES[kind].name)];

/** 1-minute rollups (daily partitions) and 1-hour rollups (monthly partitions), written by lib/series/rollup.ts. */
export const ROLLUP_1M_TABLES = [...ROLLUP_BASES.map((base) => `${base}_1m`), MINUTE_QUANTILES.table];
export const ROLLUP_1H_TABLES = ROLLUP_BASES.map((base) => `${base}_1h`);

const VIEWS = SERIES_KINDS.flatMap((kind) => TABLES[kind].view ?? []);

/** Tables managed by raw SQL migrations (partitioned, COPY-written), invisible to the Prisma schema. */
export const SERIES_TABLES = [
  ...RAW_SERIES_TABLES,
  ...ROLLUP_1M_TABLES,
  ...ROLLUP_1H_TABLES,
  'series_rollup_watermarks',
  'rollup_dirty_minutes',
  // The raw tables inferwatch_ensure_partitions partitions by day.
  'inferwatch_daily_partitioned',
  // Views: one row per CPU over cpu_sample_arrays, one per disk over disk_sample_arrays.
  ...VIEWS,
  // The findings engine's tables (lib/findings): written in bulk each cycle, with a partial unique index Prisma
  // cannot model; read and written in raw SQL only.
  'findings',
  'finding_threshold_overrides',
  'residency_policies',
  'finding_effects',
  // The alert engine's tables (lib/alerts): rules, occurrences, silences, channels and the delivery outbox, with
  // partial unique indexes Prisma cannot model; read and written in raw SQL only.
  'alert_rules',
  'alerts',
  'alert_silences',
  'alert_channels',
  'alert_deliveries',
] as const;
