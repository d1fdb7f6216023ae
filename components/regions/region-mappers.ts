import type { LatencyHistogram, RegionCompareResponse, RegionComparison } from '@/lib/protocol/read-api/regions';
import type { Finding, ResidencyPolicyView } from '@/lib/protocol/findings';
import { RANGE_MS, type RegionUrlState } from './search-params';

/** Pure shaping of GET /api/v1/regions/compare (and the residency findings) for the regions page. */

/** The range to ask for: pinned when the URL has both ends (in order), else the last `range` before now. */
export type RegionCompareQuery = { kind: 'absolute'; from: string; to: string } | { kind: 'relative'; range: RegionUrlState['range'] };

export function toRegionCompareQuery(state: Pick<RegionUrlState, 'from' | 'to' | 'range'>): RegionCompareQuery {
  if (state.from && state.to && state.from.getTime() < state.to.getTime()) {
    return { kind: 'absolute', from: state.from.toISOString(), to: state.to.toISOString() };
  }
  return { kind: 'relative', range: state.range };
}

export function compareRangeOf(query: RegionCompareQuery, nowMs: number): { from: string; to: string } {
  if (query.kind === 'absolute') return { from: query.from, to: query.to };
  return { from: new Date(nowMs - RANGE_MS[query.range]).toISOString(), to: new Date(nowMs).toISOString() };
}

const DEFAULT_PAIR = ['oslo', 'frankfurt'];

/**
 * The regions to compare: the URL's (those that exist), else Oslo and Frankfurt when both exist, else the two with
 * the most hosts.
 */
export function pickRegions(available: readonly RegionComparison[], requested: readonly string[]): string[] {
  const names = available.map((r) => r.region);
  const chosen = requested.filter((name) => names.includes(name));
  if (requested.length > 0) return chosen;
  const byName = (wanted: string) => names.find((name) => name.toLowerCase() === wanted);
  const pair = DEFAULT_PAIR.map(byName);
  if (pair.every((name) => name !== undefined)) return pair as string[];
  return [...available].sort((a, b) => b.hostCount - a.hostCount || a.region.localeCompare(b.region)).slice(0, 2).map((r) => r.region);
}

/** The latency series to show: the URL's, else the one with the most requests across the chosen regions. */
export function pickLatencySeries(regions: readonly RegionComparison[], requested: string | null): string | null {
  const totals = new Map<string, number>();
  for (const region of regions) for (const [name, q] of Object.entries(region.latency)) totals.set(name, (totals.get(name) ?? 0) + q.count);
  if (requested && totals.has(requested)) return requested;
  return [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? null;
}

export interface OverlayRow {
  lowerMs: number;
  upperMs: number;
  /** Share of each series' requests in this bin, percent, keyed s0, s1, … in the order of the regions given. */
  [series: `s${number}`]: number;
}

/**
 * Re-bins each region's sketch buckets into `bins` shared log-spaced bins, as a share of that region's requests, so
 * regions with different traffic overlay. A sketch bucket goes wholly to the bin holding its geometric middle.
 */
export function overlayHistograms(histograms: readonly (LatencyHistogram | undefined)[], bins = 40): OverlayRow[] {
  const present = histograms.filter((h): h is LatencyHistogram => h !== undefined && h.count > 0);
  const buckets = present.flatMap((h) => h.buckets).filter((b) => b.count > 0);
  if (buckets.length === 0) return [];
  const lo = Math.log(Math.min(...buckets.map((b) => b.lowerMs)));
  const hi = Math.log(Math.max(...buckets.map((b) => b.upperMs)));
  const width = (hi - lo) / bins || 1;
  const rows: OverlayRow[] = Array.from({ length: bins }, (_, i) => ({ lowerMs: Math.exp(lo + i * width), upperMs: Math.exp(lo + (i + 1) * width) }));
  histograms.forEach((histogram, s) => {
    const key = `s${s}` as const;
    for (const row of rows) row[key] = 0;
    if (!histogram || histogram.count === 0) return;
    rows[0]![key] = (rows[0]![key] ?? 0) + (100 * histogram.zeroCount) / histogram.count;
    for (const bucket of histogram.buckets) {
      const middle = (Math.log(bucket.lowerMs) + Math.log(bucket.upperMs)) / 2;
      const index = Math.min(bins - 1, Math.max(0, Math.floor((middle - lo) / width)));
      rows[index]![key] = (rows[index]![key] ?? 0) + (100 * bucket.count) / histogram.count;
    }
  });
  return rows;
}

export const QUANTILES = [
  { key: 'p50', label: 'p50' },
  { key: 'p90', label: 'p90' },
  { key: 'p95', label: 'p95' },
  { key: 'p99', label: 'p99' },
  { key: 'p999', label: 'p99.9' },
] as const;

export interface PercentileRow {
  label: string;
  /** Per chosen region, in order: its value and, after the first, the difference to the first. */
  cells: { valueMs: number | null; deltaMs: number | null; deltaPct: number | null }[];
}

export function percentileRows(regions: readonly RegionComparison[], series: string): PercentileRow[] {
  return QUANTILES.map(({ key, label }) => {
    const values = regions.map((r) => r.latency[series]?.[key] ?? null);
    const base = values[0] ?? null;
    return {
      label,
      cells: values.map((value, i) => {
        if (i === 0 || value === null || base === null) return { valueMs: value, deltaMs: null, deltaPct: null };
        return { valueMs: value, deltaMs: value - base, deltaPct: base === 0 ? null : ((value - base) / base) * 100 };
      }),
    };
  });
}

export interface ProbeRow {
  name: string;
  /** Per chosen region, in order; null where that region has no samples of this probe. */
  cells: ({ connectMsAvg: number | null; responseMsAvg: number | null; okRatio: number | null; samples: number } | null)[];
}

export function probeRows(regions: readonly RegionComparison[]): ProbeRow[] {
  const names = [...new Set(regions.flatMap((r) => r.probes.map((p) => p.name)))].sort((a, b) => a.localeCompare(b));
  return names.map((name) => ({
    name,
    cells: regions.map((r) => {
      const probe = r.probes.find((p) => p.name === name);
      return probe ? { connectMsAvg: probe.connectMsAvg, responseMsAvg: probe.responseMsAvg, okRatio: probe.okRatio, samples: probe.samples } : null;
    }),
  }));
}

export interface ResidencyRow {
  policy: ResidencyPolicyView;
  /** Open region.residency findings of this policy, per chosen region, in order. */
  violations: number[];
  /** Whether each chosen region is one the policy allows. */
  allowed: boolean[];
}

export function residencyRows(policies: readonly ResidencyPolicyView[], findings: readonly Finding[], regions: readonly string[]): ResidencyRow[] {
  return policies.map((policy) => ({
    policy,
    violations: regions.map((region) => findings.filter((f) => f.ruleId === 'region.residency' && f.subject === policy.name && f.region === region).length),
    allowed: regions.map((region) => policy.allowedRegions.includes(region)),
  }));
}

export function chosenRegions(response: RegionCompareResponse, names: readonly string[]): RegionComparison[] {
  return names.map((name) => response.regions.find((r) => r.region === name)).filter((r): r is RegionComparison => r !== undefined);
}
