import type { Database } from '../db';
import type { SketchWire } from '../protocol';
import type { LatencyHistogram, RegionCompareParams, RegionCompareResponse, RegionComparison, RegionProbe } from '../protocol/read-api/regions';
import { quantilesOf } from '../series/latency';
import { mergeHistograms } from '../series/merge-histograms';
import { coverRange } from '../series/resolution';
import { readWatermarks } from '../series/rollup';
import { SKETCH_GAMMA } from '../sketch';
import { readOpenFindingsByRegion } from './regions/region-findings';
import { readRegionGauges } from './regions/region-gauges';
import { readRegionHostCounts } from './regions/region-host-counts';
import { readRegionProbes } from './regions/region-probes';

function ratio(sum: number | null, weight: number | null): number | null {
  return sum !== null && weight ? sum / weight : null;
}

/** Bucket k of the sketch holds (γ^(k−1), γ^k]. */
export function histogramOfWire(wire: SketchWire): LatencyHistogram {
  return {
    count: wire.count,
    zeroCount: wire.zeroCount,
    buckets: wire.keys.map((key, i) => ({ lowerMs: SKETCH_GAMMA ** (key - 1), upperMs: SKETCH_GAMMA ** key, count: wire.counts[i]! })),
  };
}

/** Side by side per region over [from, to): hosts, steal and iowait, latency quantiles per series, probe RTTs. */
export async function compareRegions(db: Pick<Database, 'sql'>, range: RegionCompareParams): Promise<RegionCompareResponse> {
  const { sql } = db;
  const marks = await readWatermarks(sql);
  const segments = coverRange(range.from.getTime(), range.to.getTime(), marks);
  const [hostCounts, gauges, probes, latency, findings] = await Promise.all([
    readRegionHostCounts(sql),
    readRegionGauges(sql, segments),
    readRegionProbes(sql, segments),
    mergeHistograms(sql, { segments, groups: ['h.region', 'x.name'], where: 'TRUE', params: [], byRegion: true }),
    readOpenFindingsByRegion(sql),
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
