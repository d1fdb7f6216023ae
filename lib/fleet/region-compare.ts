import type { Database } from '../db';
import type { Sql } from '../db/sql';
import type { SketchWire } from '../protocol';
import type { Severity } from '../protocol/findings';
import type { LatencyHistogram, RegionCompareParams, RegionCompareResponse, RegionComparison, RegionProbe } from '../protocol/read-api/regions';
import { quantilesOf } from '../series/latency';
import { mergeHistograms } from '../series/merge-histograms';
import { METRIC_SOURCES, segmentColumns } from '../series/metrics';
import { coverRange, type Segment } from '../series/resolution';
import { readWatermarks } from '../series/rollup';
import { SKETCH_GAMMA } from '../sketch';

type Num = number | null;

function ratio(sum: Num, weight: Num): Num {
  return sum !== null && weight ? sum / weight : null;
}

async function hostGaugesByRegion(sql: Sql, segments: Segment[]) {
  if (segments.length === 0) return [];
  const params: unknown[] = [];
  const parts = segments.map((segment) => {
    params.push(new Date(segment.fromMs), new Date(segment.toMs));
    const steal = segmentColumns(METRIC_SOURCES.cpu_steal, segment.resolution);
    const iowait = segmentColumns(METRIC_SOURCES.cpu_iowait, segment.resolution);
    return `SELECT h.region, ${steal.sum} AS steal_s, ${steal.weight} AS steal_w, ${steal.max} AS steal_m,
      ${iowait.sum} AS iowait_s, ${iowait.weight} AS iowait_w, ${iowait.max} AS iowait_m
      FROM ${steal.table} x JOIN hosts h ON h.id = x.host_id
      WHERE x.ts >= $${params.length - 1} AND x.ts < $${params.length} GROUP BY h.region`;
  });
  return sql.query<{ region: string; steal_s: Num; steal_w: Num; steal_m: Num; iowait_s: Num; iowait_w: Num; iowait_m: Num }>(
    `SELECT region, sum(steal_s) AS steal_s, sum(steal_w) AS steal_w, max(steal_m) AS steal_m,
       sum(iowait_s) AS iowait_s, sum(iowait_w) AS iowait_w, max(iowait_m) AS iowait_m
     FROM (${parts.join('\nUNION ALL\n')}) u GROUP BY region`,
    params,
  );
}

async function probesByRegion(sql: Sql, segments: Segment[]) {
  if (segments.length === 0) return [];
  const params: unknown[] = [];
  const parts = segments.map((segment) => {
    params.push(new Date(segment.fromMs), new Date(segment.toMs));
    const connect = segmentColumns(METRIC_SOURCES.probe_connect, segment.resolution);
    const response = segmentColumns(METRIC_SOURCES.probe_response, segment.resolution);
    const [samples, ok] =
      segment.resolution === 'raw' ? ['count(*)', 'sum(x.ok::int)'] : ['sum(x.samples)', 'sum(x.ok_count)'];
    return `SELECT h.region, x.name, ${samples}::float8 AS n, ${ok}::float8 AS ok,
      ${connect.sum} AS c_s, ${connect.weight} AS c_w, ${connect.max} AS c_m,
      ${response.sum} AS r_s, ${response.weight} AS r_w, ${response.max} AS r_m
      FROM ${connect.table} x JOIN hosts h ON h.id = x.host_id
      WHERE x.ts >= $${params.length - 1} AND x.ts < $${params.length} GROUP BY h.region, x.name`;
  });
  return sql.query<{ region: string; name: string; n: number; ok: number; c_s: Num; c_w: Num; c_m: Num; r_s: Num; r_w: Num; r_m: Num }>(
    `SELECT region, name, sum(n) AS n, sum(ok) AS ok, sum(c_s) AS c_s, sum(c_w) AS c_w, max(c_m) AS c_m,
       sum(r_s) AS r_s, sum(r_w) AS r_w, max(r_m) AS r_m
     FROM (${parts.join('\nUNION ALL\n')}) u GROUP BY region, name ORDER BY region, name`,
    params,
  );
}

/** Bucket k of the sketch holds (γ^(k−1), γ^k]. */
export function histogramOfWire(wire: SketchWire): LatencyHistogram {
  return {
    count: wire.count,
    zeroCount: wire.zeroCount,
    buckets: wire.keys.map((key, i) => ({ lowerMs: SKETCH_GAMMA ** (key - 1), upperMs: SKETCH_GAMMA ** key, count: wire.counts[i]! })),
  };
}

async function openFindingsByRegion(sql: Sql) {
  return sql.query<{ region: string; severity: Severity; n: number }>(
    `SELECT region, severity, count(*)::int AS n FROM findings WHERE state = 'open' GROUP BY region, severity`,
  );
}

/** Side by side per region over [from, to): hosts, steal and iowait, latency quantiles per series, probe RTTs. */
export async function compareRegions(db: Pick<Database, 'sql'>, range: RegionCompareParams): Promise<RegionCompareResponse> {
  const { sql } = db;
  const marks = await readWatermarks(sql);
  const segments = coverRange(range.from.getTime(), range.to.getTime(), marks);
  const [hostCounts, gauges, probes, latency, findings] = await Promise.all([
    sql.query<{ region: string; n: number }>('SELECT region, count(*)::int AS n FROM hosts GROUP BY region ORDER BY region'),
    hostGaugesByRegion(sql, segments),
    probesByRegion(sql, segments),
    mergeHistograms(sql, { segments, groups: ['h.region', 'x.name'], where: 'TRUE', params: [], byRegion: true }),
    openFindingsByRegion(sql),
  ]);
  const regions = new Map<string, RegionComparison>();
  for (const { region, n } of hostCounts) {
    regions.set(region, {
      region,
      hostCount: n,
      stealPctAvg: null,
      stealPctMax: null,
      iowaitPctAvg: null,
      iowaitPctMax: null,
      latency: {},
      probes: [],
      latencyHistograms: {},
      findings: { critical: 0, warning: 0, info: 0 },
    });
  }
  for (const g of gauges) {
    const r = regions.get(g.region);
    if (!r) continue;
    r.stealPctAvg = ratio(g.steal_s, g.steal_w);
    r.stealPctMax = g.steal_m;
    r.iowaitPctAvg = ratio(g.iowait_s, g.iowait_w);
    r.iowaitPctMax = g.iowait_m;
  }
  for (const p of probes) {
    const probe: RegionProbe = {
      name: p.name,
      samples: p.n,
      okRatio: ratio(p.ok, p.n),
      connectMsAvg: ratio(p.c_s, p.c_w),
      connectMsMax: p.c_m,
      responseMsAvg: ratio(p.r_s, p.r_w),
      responseMsMax: p.r_m,
    };
    regions.get(p.region)?.probes.push(probe);
  }
  for (const row of latency) {
    const [region, name] = row.groups as [string, string];
    const r = regions.get(region);
    if (!r) continue;
    r.latency[name] = quantilesOf(row.wire);
    r.latencyHistograms[name] = histogramOfWire(row.wire);
  }
  for (const f of findings) {
    const r = regions.get(f.region);
    if (r) r.findings[f.severity] = f.n;
  }
  return { from: range.from.toISOString(), to: range.to.toISOString(), regions: [...regions.values()] };
}
