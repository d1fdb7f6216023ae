import type { Database } from '../db';
import type { Sql } from '../db/sql';
import { BadRequestError } from '../errors';
import { quantileOfWire } from '../sketch';
import { isLatencyCompareMetric, type CompareParams, type CompareResponse, type ComparedHost } from '../protocol/read-api/compare';
import { readCostIssue } from '../protocol/read-api/params';
import type { SeriesMetric, SeriesPoint } from '../protocol/read-api/series';
import { isFolded, readGaugeBuckets, readGaugeTotals } from './host-gauges';
import { readHostsInScope } from './hosts-in-scope';
import { mergeHistograms } from './merge-histograms';
import { METRIC_SOURCES } from './metrics';
import { readMinuteQuantiles, summarizeMinuteQuantiles } from './minute-quantiles';
import { MINUTE_QUANTILES, type MinuteQuantile } from './tables';
import { MINUTE_MS } from '../protocol/time';
import { coverRange, resolutionFor, segmentsAt, type ReadOptions, type Segment } from './resolution';
import { readWatermarks } from './rollup';

const ORIGIN = "TIMESTAMPTZ '2000-01-01 00:00:00+00'";
const LATENCY_QUANTILE = { latency_p50: 'p50', latency_p95: 'p95', latency_p99: 'p99' } as const satisfies Record<string, MinuteQuantile>;
const QUANTILE = MINUTE_QUANTILES.quantiles;

/** A latency quantile of each host per bucket other than a minute, from its histograms merged per bucket. */
async function mergedBucketQuantiles(
  sql: Sql,
  query: { hostIds: number[]; name: string; q: number; bucketMs: number; segments: Segment[] },
): Promise<{ hostId: number; t: number; value: number | null }[]> {
  const rows = await mergeHistograms(sql, {
    segments: query.segments,
    groups: ['h.id', `date_bin(INTERVAL '${query.bucketMs / 1000} seconds', x.ts, ${ORIGIN})`],
    where: 'x.name = $1 AND h.id = ANY($2::int4[])',
    params: [query.name, query.hostIds],
  });
  return rows
    .map((row) => ({ hostId: Number(row.groups[0]), t: new Date(row.groups[1] as Date).getTime(), value: quantileOfWire(row.wire, query.q) }))
    .sort((a, b) => a.t - b.t);
}

/**
 * One metric of many hosts over [from, to): the scope's hosts ranked by the metric's average (or peak) over the whole
 * range from the cheapest cover of it — for a latency quantile, the mean (or worst) of the host's per-minute quantile
 * as the rollups keep it — then the top `limit` as time series.
 */
export async function compareHosts(db: Pick<Database, 'sql'>, query: CompareParams, options: ReadOptions = {}): Promise<CompareResponse> {
  const { sql } = db;
  const latency = isLatencyCompareMetric(query.metric);
  if (!latency && query.key !== undefined && isFolded(METRIC_SOURCES[query.metric as SeriesMetric])) {
    throw new BadRequestError(`${query.metric} compares each host's most-stolen CPU and takes no key`);
  }
  const [hosts, marks] = await Promise.all([readHostsInScope(sql, query.scope), readWatermarks(sql)]);
  const ids = hosts.map((h) => h.id);
  const cost = readCostIssue({ from: query.from, to: query.to, hosts: ids.length });
  if (cost) throw new BadRequestError(`the ${query.scope.kind} matches ${cost.message}`);
  const fromMs = query.from.getTime();
  const toMs = query.to.getTime();
  const { resolution, bucketMs } = resolutionFor(query.from, query.to, query.maxPoints, options);
  const seriesSegments = segmentsAt(resolution, fromMs, toMs, marks);
  const totalSegments = coverRange(fromMs, toMs, marks);
  const key = query.key ?? null;

  let ranked: { hostId: number; value: number | null }[];
  let pointsOf: (topIds: number[]) => Promise<Map<number, SeriesPoint[]>>;
  if (latency) {
    const quantile = LATENCY_QUANTILE[query.metric as keyof typeof LATENCY_QUANTILE];
    const minutes = { name: query.latency, quantile, fromMs, toMs, openMinutes: true };
    const summaries = await summarizeMinuteQuantiles(sql, { hostIds: ids, ...minutes });
    ranked = [...summaries].map(([hostId, s]) => ({ hostId, value: query.rank === 'max' ? s.max : s.mean }));
    pointsOf = async (topIds) => {
      const out = new Map<number, SeriesPoint[]>();
      const points =
        bucketMs === MINUTE_MS
          ? (await readMinuteQuantiles(sql, { hostIds: topIds, ...minutes })).filter((m) => m.value !== null)
          : await mergedBucketQuantiles(sql, { hostIds: topIds, name: query.latency!, q: QUANTILE[quantile], bucketMs, segments: seriesSegments });
      for (const { hostId, t, value } of points) {
        const list = out.get(hostId) ?? [];
        list.push({ t, avg: value, max: null });
        out.set(hostId, list);
      }
      return out;
    };
  } else {
    const metric = query.metric as SeriesMetric;
    const totals = await readGaugeTotals(sql, metric, ids, totalSegments, key);
    ranked = totals.map((r) => ({ hostId: r.host_id, value: query.rank === 'max' ? r.max : r.avg }));
    pointsOf = async (topIds) => {
      const rows = await readGaugeBuckets(sql, metric, topIds, seriesSegments, bucketMs, key);
      const out = new Map<number, SeriesPoint[]>();
      for (const row of rows) {
        const list = out.get(row.host_id) ?? [];
        list.push({ t: row.t.getTime(), avg: row.avg, max: row.max });
        out.set(row.host_id, list);
      }
      return out;
    };
  }

  const byId = new Map(hosts.map((h) => [h.id, h]));
  const top = rankHosts(ranked, byId, query.limit);
  const points = top.length ? await pointsOf(top.map((r) => r.hostId)) : new Map<number, SeriesPoint[]>();
  const compared: ComparedHost[] = top.map((r) => {
    const host = byId.get(r.hostId)!;
    return { hostId: host.id, hostname: host.hostname, region: host.region, value: r.value, points: points.get(host.id) ?? [] };
  });
  return {
    metric: query.metric,
    unit: latency ? 'ms' : METRIC_SOURCES[query.metric as SeriesMetric].unit,
    scope: query.scope,
    latency: latency ? (query.latency ?? null) : null,
    key: latency ? null : key,
    rank: query.rank,
    from: query.from.toISOString(),
    to: query.to.toISOString(),
    resolution,
    bucketMs,
    matchedHosts: hosts.length,
    hostsWithData: ranked.length,
    limit: query.limit,
    hosts: compared,
  };
}

/** Highest value first (hosts without a value last), ties by hostname, then id. */
export function rankHosts(
  ranked: readonly { hostId: number; value: number | null }[],
  hosts: ReadonlyMap<number, { hostname: string }>,
  limit: number,
): { hostId: number; value: number | null }[] {
  return ranked
    .filter((r) => hosts.has(r.hostId))
    .sort((a, b) => {
      if (a.value !== b.value) {
        if (a.value === null) return 1;
        if (b.value === null) return -1;
        return b.value - a.value;
      }
      return hosts.get(a.hostId)!.hostname.localeCompare(hosts.get(b.hostId)!.hostname) || a.hostId - b.hostId;
    })
    .slice(0, limit);
}
