import { z } from 'zod';
import { findingCountsSchema, topFindingSchema } from '../findings';
import { isoTimeSchema, labelValuesSchema } from '../response-fields';
import { checkReadCost, labelsSchema, regionSchema } from './params';

/** The host table's sort keys; `attention` puts hosts with the most severe open findings first. */
export const FLEET_SORTS = ['attention', 'hostname', 'region', 'status', 'steal', 'iowait', 'diskQueue', 'p99', 'findings', 'lastSeen'] as const;
export type FleetSort = (typeof FLEET_SORTS)[number];
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];
/** The direction a sort starts in: worst or newest first for measurements, alphabetical for names. */
export const DEFAULT_SORT_DIRECTION: Record<FleetSort, SortDirection> = {
  attention: 'asc',
  hostname: 'asc',
  region: 'asc',
  status: 'asc',
  steal: 'desc',
  iowait: 'desc',
  diskQueue: 'desc',
  p99: 'desc',
  findings: 'desc',
  lastSeen: 'desc',
};

export const HOST_STATUSES = ['ok', 'stale', 'never_reported'] as const;
/** `any`: at least one open finding; a severity: the host's most severe open finding is of that severity. */
export const FINDING_FILTERS = ['any', 'none', 'critical', 'warning', 'info'] as const;
export type FindingFilter = (typeof FINDING_FILTERS)[number];

export const FLEET_PAGE_SIZES = [25, 50, 100, 200] as const;
export const DEFAULT_FLEET_PAGE_SIZE = 50;
export const MAX_FLEET_PAGE_SIZE = 500;
/** Host p99 (its worst rolled-up minute) and the fleet p99 tile (histograms merged) cover this window. */
export const FLEET_LATENCY_WINDOW_MS = 15 * 60_000;

/** `a,b,c` → ['a', 'b', 'c'] (empty items dropped), each checked by `item`. */
function commaList<T extends z.ZodType>(item: T) {
  const split = (value: unknown) =>
    typeof value === 'string' ? value.split(',').map((part) => part.trim()).filter((part) => part.length > 0) : value;
  return z.preprocess(split, z.array(item).max(MAX_FLEET_PAGE_SIZE));
}

/**
 * GET /api/v1/fleet — the fleet summary the home page shows. Without `page`/`limit` the lib call returns every
 * host (what /metrics needs); the route handler always pages.
 */
export const fleetParamsSchema = z.object({
  region: regionSchema.optional(),
  /** Any of these regions (comma-separated); combines with `region`. */
  regions: commaList(regionSchema).optional(),
  status: commaList(z.enum(HOST_STATUSES)).optional(),
  finding: z.enum(FINDING_FILTERS).optional(),
  /** Hosts whose labels include every `key:value` pair. */
  label: labelsSchema.optional(),
  /** Case-insensitive substring of the hostname, region or a label value. */
  q: z.string().trim().max(200).optional(),
  /** The latency series of the p99 column and tile; all series merged when absent. */
  latency: z.string().trim().min(1).max(200).optional(),
  sort: z.enum(FLEET_SORTS).optional(),
  dir: z.enum(SORT_DIRECTIONS).optional(),
  page: z.coerce.number().int().min(1).max(100_000).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_FLEET_PAGE_SIZE).optional(),
});
export type FleetParams = z.infer<typeof fleetParamsSchema>;

export const fleetHostLatestSchema = z.strictObject({
  ts: isoTimeSchema,
  stealPct: z.number().nullable(),
  iowaitPct: z.number().nullable(),
  userPct: z.number().nullable(),
  systemPct: z.number().nullable(),
  idlePct: z.number().nullable(),
  load1: z.number().nullable(),
  psiCpuSomeAvg10: z.number().nullable(),
  psiIoSomeAvg10: z.number().nullable(),
});

export type HostStatus = (typeof HOST_STATUSES)[number];

/** Where a value starts to warn and to be critical; null where that level never comes (or the rule is off). */
export const colourLevelsSchema = z.strictObject({ warn: z.number().nullable(), crit: z.number().nullable() });
export type ColourLevels = z.infer<typeof colourLevelsSchema>;

/**
 * The levels the dashboard colours a host's values at: the thresholds of the findings rule that judges each
 * value (cpu.steal-high, storage.iowait-high, storage.disk-saturated), with the overrides that apply to the host.
 */
export const hostColourLevelsSchema = z
  .strictObject({ stealPct: colourLevelsSchema, iowaitPct: colourLevelsSchema, diskQueueDepth: colourLevelsSchema })
  .meta({
    description: 'Where each value turns warning and critical: the thresholds of the findings rule that judges it, with the overrides that apply to this host; null: never.',
  });
export type HostColourLevels = z.infer<typeof hostColourLevelsSchema>;

export const fleetHostSchema = z.strictObject({
  id: z.number().int(),
  hostname: z.string(),
  region: z.string(),
  labels: labelValuesSchema,
  lastSeenAt: isoTimeSchema.nullable(),
  agentVersion: z.string().nullable().meta({ description: 'The version its agent sent in its newest report; null until its first report.' }),
  status: z.enum(HOST_STATUSES),
  latest: fleetHostLatestSchema.nullable(),
  /** Open findings about this host, by severity. */
  findings: findingCountsSchema,
  /** Its most severe open finding, unacknowledged ones first; null when it has none. */
  topFinding: topFindingSchema.nullable(),
  levels: hostColourLevelsSchema,
  /** The newest report's deepest disk queue (average requests in flight), over all its disks. Paged reads only. */
  diskQueueDepth: z.number().nullable().optional(),
  /**
   * Its worst 1-minute p99 (ms) among the rolled-up minutes of the last FLEET_LATENCY_WINDOW_MS, each minute's p99
   * from its merged histograms as the rollup stored it. Paged reads only.
   */
  p99Ms: z
    .number()
    .nullable()
    .optional()
    .meta({ description: 'The worst 1-minute p99 (ms) among the rolled-up minutes of the last 15; null without requests.' }),
});
export type FleetHost = z.infer<typeof fleetHostSchema>;

export const fleetSummarySchema = z.strictObject({
  generatedAt: isoTimeSchema,
  /** A host is stale when it has not reported for this long. */
  staleAfterMs: z.number().int(),
  hosts: z.array(fleetHostSchema),
  /** Open findings of the whole fleet (hosts and regions), by severity. */
  findings: findingCountsSchema,
});
export type FleetSummary = z.infer<typeof fleetSummarySchema>;

/** The fleet page's tiles: the whole fleet, whatever the table's filters. */
export const fleetTilesSchema = z.strictObject({
  hosts: z.number().int(),
  reporting: z.number().int(),
  stale: z.number().int(),
  neverReported: z.number().int(),
  /** Hosts by their most severe open finding (each host counted once). */
  misconfiguredHosts: findingCountsSchema,
  /** p99 (ms) of every host's merged histograms over the window, null without requests. */
  p99Ms: z.number().nullable(),
  latencyCount: z.number().int(),
  latencyWindowMs: z.number().int(),
});

export const fleetPageInfoSchema = z.strictObject({
  /** 1-based; past the last page, the last page. */
  page: z.number().int(),
  limit: z.number().int(),
  /** Hosts matching the filters. */
  total: z.number().int(),
  pages: z.number().int(),
  sort: z.enum(FLEET_SORTS),
  dir: z.enum(SORT_DIRECTIONS),
});
export type FleetPageInfo = z.infer<typeof fleetPageInfoSchema>;

/** What GET /api/v1/fleet answers: the summary with one page of hosts, plus the tiles and the filters' choices. */
export const fleetPageSchema = fleetSummarySchema.extend({
  pageInfo: fleetPageInfoSchema,
  tiles: fleetTilesSchema,
  /** Every region with hosts, and the latency series names reported in the window. */
  regions: z.array(z.string()),
  latencyNames: z.array(z.string()),
});
export type FleetPage = z.infer<typeof fleetPageSchema>;

/** GET /api/v1/fleet/sparklines — 1-minute points of one metric for a page of hosts. */
export const SPARKLINE_METRICS = ['steal', 'p99'] as const;
export type SparklineMetric = (typeof SPARKLINE_METRICS)[number];
export const SPARKLINE_WINDOW_MS = 60 * 60_000;

export const sparklineParamsSchema = z
  .object({
    ids: commaList(z.coerce.number().int().positive().max(2_147_483_647)).refine((ids) => ids.length > 0, 'give at least one host id'),
    metric: z.enum(SPARKLINE_METRICS),
    latency: z.string().trim().min(1).max(200).optional(),
  })
  .superRefine(checkReadCost<{ ids: number[] }>({ points: (v) => v.ids.length * (SPARKLINE_WINDOW_MS / 60_000), paths: { points: 'ids' } }));
export type SparklineParams = z.infer<typeof sparklineParamsSchema>;

export const sparklinePointSchema = z.strictObject({
  /** Minute start, ms since the epoch. */
  t: z.number(),
  v: z.number().nullable(),
});
export type SparklinePoint = z.infer<typeof sparklinePointSchema>;

export const sparklinesResponseSchema = z.strictObject({
  metric: z.enum(SPARKLINE_METRICS),
  from: isoTimeSchema,
  to: isoTimeSchema,
  /** Per host id (as a string key), its points in time order; hosts without data have none. */
  hosts: z.record(z.string(), z.array(sparklinePointSchema)),
});
export type SparklinesResponse = z.infer<typeof sparklinesResponseSchema>;

/** GET /api/v1/fleet/demo — the simulated hosts of the demo fleet (labelled demo=true), which the dashboard announces. */
export const demoFleetResponseSchema = z.strictObject({
  hosts: z.number().int().meta({ description: 'Hosts labelled demo=true.' }),
  /** Those that reported within the stale threshold: the demo runs in some server process. */
  reporting: z.number().int().meta({ description: 'Those that reported within the stale threshold.' }),
});
export type DemoFleetResponse = z.infer<typeof demoFleetResponseSchema>;
