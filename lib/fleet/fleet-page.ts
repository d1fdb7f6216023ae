import { z } from 'zod';
import type { Database } from '../db';
import { column, queryRows } from '../db/rows';
import type { Sql } from '../db/sql';
import { hostFindingSummaries } from '../findings/read/host-summaries';
import { listThresholdOverrides } from '../findings/store/threshold-overrides';
import type { SketchWire } from '../protocol';
import { FLEET_LATENCY_WINDOW_MS, type FleetPage, type FleetParams } from '../protocol/read-api/fleet';
import { MINUTE_MS, floorTo } from '../protocol/time';
import { mergeHistograms } from '../series/merge-histograms';
import { summarizeMinuteQuantiles } from '../series/minute-quantiles';
import { coverRange } from '../series/resolution';
import { readWatermarks } from '../series/rollup';
import { mergeWires, quantileOfWire } from '../sketch';
import { fleetPageSql, fleetPageSqlRow } from './fleet-page-sql';
import { DEFAULT_STALE_AFTER_MS } from './staleness';
import { DEFAULT_LOOKBACK_MS, selectFleetRows, toFleetHost, type FleetOptions } from './fleet-summary';
import { withoutJit } from '../db/without-jit';
import { colourLevelsResolver } from './colour-levels';
import { pageInfo, pageOf, resolveSort } from './fleet-query';

const collator = new Intl.Collator('en');

const diskQueueRow = z.object({ id: column.id, queue: z.number().nullable() });

/** Deepest queue over the disks of each host's newest disk report within the lookback. */
export async function readDiskQueuesOf(sql: Sql, hostIds: readonly number[], now: Date, lookbackMs: number): Promise<Map<number, number | null>> {
  const out = new Map<number, number | null>();
  if (hostIds.length === 0) return out;
  const rows = await withoutJit(sql, (tx) =>
    queryRows(
      tx,
      'disk_sample_arrays',
      diskQueueRow,
      `SELECT i.id, (SELECT max(q) FROM unnest(d.queue_depth) q)::float8 AS queue
         FROM unnest($1::int[]) AS i(id)
         JOIN LATERAL (SELECT queue_depth FROM disk_sample_arrays d WHERE d.host_id = i.id AND d.ts >= $2 AND d.ts <= $3
                        ORDER BY d.ts DESC LIMIT 1) d ON TRUE`,
      [[...hostIds], new Date(now.getTime() - lookbackMs), new Date(now.getTime() + 5 * 60_000)],
    ),
  );
  for (const row of rows) out.set(row.id, row.queue);
  return out;
}

/**
 * Each host's worst 1-minute p99 (of one series, or of all its series merged) among the minutes of the last
 * FLEET_LATENCY_WINDOW_MS that are rolled up, read as the rollup stored them: the open minutes are left out, since
 * merging them for every host of a large fleet costs what storing the quantiles saves.
 */
export async function readHostP99(sql: Sql, query: { hostIds: readonly number[]; nowMs: number; latency?: string }): Promise<Map<number, number | null>> {
  const toMs = floorTo(query.nowMs, MINUTE_MS);
  const minutes = await summarizeMinuteQuantiles(sql, {
    hostIds: query.hostIds,
    name: query.latency,
    quantile: 'p99',
    fromMs: toMs - FLEET_LATENCY_WINDOW_MS,
    toMs,
  });
  return new Map([...minutes].map(([hostId, summary]) => [hostId, summary.max]));
}

/** The whole fleet's merged histogram per latency series over [from, to), from the region rollups. */
async function readFleetLatency(sql: Sql, fromMs: number, toMs: number): Promise<Map<string, SketchWire>> {
  const marks = await readWatermarks(sql);
  const rows = await mergeHistograms(sql, { segments: coverRange(fromMs, toMs, marks), groups: ['x.name'], where: 'TRUE', params: [], byRegion: true });
  return new Map(rows.map((row) => [String(row.groups[0]), row.wire]));
}

function byIdOrder<T extends { id: number }>(items: readonly T[], ids: readonly number[]): T[] {
  const byId = new Map(items.map((item) => [item.id, item]));
  return ids.map((id) => byId.get(id)).filter((item): item is T => item !== undefined);
}

/**
 * One page of the host table, filtered and sorted over the whole fleet in SQL, with the tiles. Disk queue and p99
 * are read for the page's hosts; sorting by p99 reads it for every matching host and ranks them here.
 */
export async function getFleetPage(db: Pick<Database, 'sql'>, params: FleetParams, options: FleetOptions = {}): Promise<FleetPage> {
  const now = options.now ?? new Date();
  const nowMs = now.getTime();
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
  const window = { fromMs: nowMs - FLEET_LATENCY_WINDOW_MS, toMs: nowMs };
  const sort = resolveSort(params);
  const statement = fleetPageSql(params, sort, { now, staleAfterMs, lookbackMs: options.lookbackMs ?? DEFAULT_LOOKBACK_MS });
  const [[summary], findings, fleetLatency, overrides] = await Promise.all([
    withoutJit(db.sql, (tx) => queryRows(tx, 'hosts', fleetPageSqlRow, statement.text, statement.values)),
    hostFindingSummaries(db),
    readFleetLatency(db.sql, window.fromMs, window.toMs),
    listThresholdOverrides(db),
  ]);
  const levelsOf = colourLevelsResolver(overrides);
  const matchingIds = summary!.ids;

  let ids = matchingIds;
  let paging = { page: 1, limit: Math.max(1, summary!.total), pages: 1 };
  let p99ById: Map<number, number | null> | null = null;
  if (sort.sort === 'p99') {
    p99ById = await readHostP99(db.sql, { hostIds: matchingIds, nowMs, latency: params.latency });
    const sign = sort.dir === 'asc' ? 1 : -1;
    // Stable over the name order the statement returned; hosts without latency last either way.
    const ranked = [...matchingIds].sort((a, b) => {
      const [x, y] = [p99ById!.get(a) ?? null, p99ById!.get(b) ?? null];
      if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
      return sign * (x - y);
    });
    const paged = pageOf(ranked, params);
    ids = paged.items;
    paging = paged;
  } else if (params.limit !== undefined) {
    const pages = Math.max(1, Math.ceil(summary!.total / params.limit));
    paging = { page: Math.min(params.page ?? 1, pages), limit: params.limit, pages };
  }

  const [rows, queues, p99] = await Promise.all([
    ids.length ? selectFleetRows(db.sql, { hostIds: ids, now, lookbackMs: options.lookbackMs }) : Promise.resolve([]),
    readDiskQueuesOf(db.sql, ids, now, options.lookbackMs ?? DEFAULT_LOOKBACK_MS),
    p99ById ? Promise.resolve(p99ById) : readHostP99(db.sql, { hostIds: ids, nowMs, latency: params.latency }),
  ]);
  const hosts = byIdOrder(rows, ids).map((row) => ({
    ...toFleetHost(row, nowMs, staleAfterMs, findings.byHost.get(row.id), levelsOf),
    diskQueueDepth: queues.get(row.id) ?? null,
    p99Ms: p99.get(row.id) ?? null,
  }));

  const wires = params.latency === undefined ? [...fleetLatency.values()] : [fleetLatency.get(params.latency)].filter((w) => w !== undefined);
  const fleetWire = wires.length === 1 ? wires[0]! : mergeWires(wires);
  return {
    generatedAt: now.toISOString(),
    staleAfterMs,
    hosts,
    findings: findings.total,
    pageInfo: pageInfo(summary!.total, paging, sort),
    tiles: {
      hosts: summary!.hosts,
      reporting: summary!.reporting,
      stale: summary!.stale,
      neverReported: summary!.never_reported,
      misconfiguredHosts: { critical: summary!.worst_critical, warning: summary!.worst_warning, info: summary!.worst_info },
      p99Ms: quantileOfWire(fleetWire, 0.99),
      latencyCount: fleetWire.count,
      latencyWindowMs: FLEET_LATENCY_WINDOW_MS,
    },
    regions: [...summary!.regions].sort(collator.compare),
    latencyNames: [...fleetLatency.keys()].sort(collator.compare),
  };
}
