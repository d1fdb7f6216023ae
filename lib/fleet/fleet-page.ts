import type { Database } from '../db';
import type { Sql } from '../db/sql';
import { hostFindingSummaries } from '../findings/host-summaries';
import type { SketchWire } from '../protocol';
import { FLEET_LATENCY_WINDOW_MS, type FleetHost, type FleetPage, type FleetParams } from '../protocol/read-api/fleet';
import { mergeHistograms } from '../series/merge-histograms';
import { coverRange } from '../series/resolution';
import { readWatermarks } from '../series/rollup';
import { mergeWires, quantileOfWire } from '../sketch';
import { selectFleetRows, staleAfterMsFromEnv, toFleetHost, type FleetOptions } from './fleet-summary';
import { withoutJit } from './without-jit';
import { countFleetTiles, filterFleetHosts, pageInfo, pageOf, resolveSort, sortFleetHosts, sortNeedsAllHosts } from './fleet-query';

const collator = new Intl.Collator('en');

/** Deepest queue over the disks of each host's newest report (the report its host sample came from). */
export async function readDiskQueues(sql: Sql, hosts: readonly FleetHost[]): Promise<Map<number, number | null>> {
  const reported = hosts.filter((host) => host.latest !== null);
  const out = new Map<number, number | null>();
  if (reported.length === 0) return out;
  const times = reported.map((host) => new Date(host.latest!.ts));
  // Constant bounds let the planner prune the daily partitions; the per-host equality then finds the one row.
  const fromTs = new Date(Math.min(...times.map((t) => t.getTime())));
  const toTs = new Date(Math.max(...times.map((t) => t.getTime())));
  const rows = await withoutJit(sql, (tx) => tx.query<{ id: number; queue: number | null }>(
    `SELECT i.id, (SELECT max(q) FROM unnest(d.queue_depth) q)::float8 AS queue
       FROM unnest($1::int[], $2::timestamptz[]) AS i(id, ts)
       JOIN disk_sample_arrays d ON d.host_id = i.id AND d.ts = i.ts
      WHERE d.ts >= $3 AND d.ts <= $4`,
    [reported.map((host) => host.id), times, fromTs, toTs],
  ));
  for (const row of rows) out.set(row.id, row.queue);
  return out;
}

function latencyWhere(name: string | undefined, first: number): { where: string; params: unknown[] } {
  return name === undefined ? { where: 'TRUE', params: [] } : { where: `x.name = $${first}`, params: [name] };
}

/** Each host's p99 over [from, to) from its merged histograms (of one series, or of all). */
export async function readHostP99(
  sql: Sql,
  query: { hostIds: readonly number[]; fromMs: number; toMs: number; latency?: string },
): Promise<Map<number, number | null>> {
  const out = new Map<number, number | null>();
  if (query.hostIds.length === 0) return out;
  const marks = await readWatermarks(sql);
  const name = latencyWhere(query.latency, 2);
  const rows = await withoutJit(sql, (tx) =>
    mergeHistograms(tx, {
      segments: coverRange(query.fromMs, query.toMs, marks),
      groups: ['x.host_id'],
      where: `x.host_id = ANY($1::int[]) AND ${name.where}`,
      params: [[...query.hostIds], ...name.params],
    }),
  );
  for (const row of rows) out.set(Number(row.groups[0]), quantileOfWire(row.wire, 0.99));
  return out;
}

/** The whole fleet's merged histogram per latency series over [from, to), from the region rollups. */
async function readFleetLatency(sql: Sql, fromMs: number, toMs: number): Promise<Map<string, SketchWire>> {
  const marks = await readWatermarks(sql);
  const rows = await mergeHistograms(sql, { segments: coverRange(fromMs, toMs, marks), groups: ['x.name'], where: 'TRUE', params: [], byRegion: true });
  return new Map(rows.map((row) => [String(row.groups[0]), row.wire]));
}

/**
 * One page of the host table (filtered and sorted over the whole fleet) with the tiles. Disk queue and p99 are
 * read for the page only, unless the table is sorted by one of them.
 */
export async function getFleetPage(db: Pick<Database, 'sql'>, params: FleetParams, options: FleetOptions = {}): Promise<FleetPage> {
  const now = options.now ?? new Date();
  const nowMs = now.getTime();
  const staleAfterMs = options.staleAfterMs ?? staleAfterMsFromEnv();
  const window = { fromMs: nowMs - FLEET_LATENCY_WINDOW_MS, toMs: nowMs };
  const [rows, findings, fleetLatency] = await Promise.all([
    selectFleetRows(db.sql, { now, lookbackMs: options.lookbackMs }),
    hostFindingSummaries(db),
    readFleetLatency(db.sql, window.fromMs, window.toMs),
  ]);
  const hosts = rows.map((row) => toFleetHost(row, nowMs, staleAfterMs, findings.byHost.get(row.id)));

  const sort = resolveSort(params);
  let matching = filterFleetHosts(hosts, params);
  const enrich = async (subset: FleetHost[]) => {
    const [queues, p99] = await Promise.all([
      readDiskQueues(db.sql, subset),
      readHostP99(db.sql, { hostIds: subset.map((host) => host.id), ...window, latency: params.latency }),
    ]);
    return subset.map((host) => ({ ...host, diskQueueDepth: queues.get(host.id) ?? null, p99Ms: p99.get(host.id) ?? null }));
  };
  if (sortNeedsAllHosts(sort.sort)) matching = await enrich(matching);
  const sorted = sortFleetHosts(matching, sort.sort, sort.dir);
  const paged = pageOf(sorted, params);
  const pageHosts = sortNeedsAllHosts(sort.sort) ? paged.items : await enrich(paged.items);

  const wires = params.latency === undefined ? [...fleetLatency.values()] : [fleetLatency.get(params.latency)].filter((w) => w !== undefined);
  const fleetWire = wires.length === 1 ? wires[0]! : mergeWires(wires);
  return {
    generatedAt: now.toISOString(),
    staleAfterMs,
    hosts: pageHosts,
    findings: findings.total,
    pageInfo: pageInfo(matching.length, paged, sort),
    tiles: {
      ...countFleetTiles(hosts),
      p99Ms: quantileOfWire(fleetWire, 0.99),
      latencyCount: fleetWire.count,
      latencyWindowMs: FLEET_LATENCY_WINDOW_MS,
    },
    regions: [...new Set(hosts.map((host) => host.region))].sort(collator.compare),
    latencyNames: [...fleetLatency.keys()].sort(collator.compare),
  };
}
