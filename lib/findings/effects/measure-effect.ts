import type { Database } from '../../db/open';
import type { GaugeEffect, LatencyEffect } from '../../protocol/findings';
import { SERIES_METRICS, type SeriesMetric } from '../../protocol/read-api/series-metrics';
import { quantileOfWire } from '../../sketch';
import { getHostSeries } from '../../series/host-series';
import { mergeHistograms } from '../../series/merge-histograms';
import { coverRange } from '../../series/resolution';
import { readWatermarks } from '../../series/rollup';
import { readNewestChange } from '../latency/read/inventory-changes';
import type { ResolvedOccurrence } from '../store/finding-effects';
import type { EffectMeasurements } from '../judge-effect';

/** A rule's evidence names at most a few series; more would be a chart, not a comparison. */
const MAX_GAUGES = 3;

type Range = { fromMs: number; toMs: number };
type LatencyWindow = Map<string, LatencyEffect['before']>;

async function readLatency(db: Pick<Database, 'sql'>, hostId: number, range: Range, marks: Awaited<ReturnType<typeof readWatermarks>>): Promise<LatencyWindow> {
  const rows = await mergeHistograms(db.sql, {
    segments: coverRange(range.fromMs, range.toMs, marks),
    groups: ['x.name'],
    where: 'h.id = $1',
    params: [hostId],
  });
  return new Map(rows.map((row) => [String(row.groups[0]), { p99Ms: quantileOfWire(row.wire, 0.99), requests: row.wire.count }]));
}

const isSeriesMetric = (metric: string): metric is SeriesMetric => (SERIES_METRICS as readonly string[]).includes(metric);

/** The mean of one series of the host over the range: its keyed series when the evidence names a key. */
async function readGaugeMean(db: Pick<Database, 'sql'>, hostId: number, metric: SeriesMetric, key: string | null, range: Range) {
  const response = await getHostSeries(db, { hostId, metric, from: new Date(range.fromMs), to: new Date(range.toMs), maxPoints: 60 });
  const series = response.series.find((s) => s.key === key) ?? (key === null && response.series.length === 1 ? response.series[0] : undefined);
  const values = (series?.points ?? []).map((p) => p.avg).filter((v): v is number => v !== null);
  return { unit: response.unit, mean: values.length ? values.reduce((a, b) => a + b, 0) / values.length : null };
}

/**
 * What the fix of one occurrence changed, read from the database: the newest inventory change between its first
 * sighting and its resolution (a restart's snapshots taken as one change), then latency and the rule's own series over the last `windowMs` it held (ending at that
 * change, or at the resolution when nothing changed; never before it was first seen) and the `windowMs` after it
 * resolved.
 */
export async function measureEffect(db: Pick<Database, 'sql'>, occurrence: ResolvedOccurrence, windowMs: number): Promise<EffectMeasurements> {
  const { hostId, firstSeenAtMs, resolvedAtMs } = occurrence;
  const change = await readNewestChange(db.sql, hostId, new Date(firstSeenAtMs), new Date(resolvedAtMs + 1));
  const beforeEnd = change?.atMs ?? resolvedAtMs;
  const before = { fromMs: Math.max(firstSeenAtMs, beforeEnd - windowMs), toMs: beforeEnd };
  const after = { fromMs: resolvedAtMs, toMs: resolvedAtMs + windowMs };

  const marks = await readWatermarks(db.sql);
  const [latencyBefore, latencyAfter] = [await readLatency(db, hostId, before, marks), await readLatency(db, hostId, after, marks)];
  const none = { p99Ms: null, requests: 0 };
  const latency = [...new Set([...latencyBefore.keys(), ...latencyAfter.keys()])].map((name) => ({
    name,
    before: latencyBefore.get(name) ?? none,
    after: latencyAfter.get(name) ?? none,
  }));

  const gauges: GaugeEffect[] = [];
  for (const series of (occurrence.evidence.series ?? []).filter((s) => isSeriesMetric(s.metric)).slice(0, MAX_GAUGES)) {
    const metric = series.metric as SeriesMetric;
    const key = series.key ?? null;
    const [b, a] = [await readGaugeMean(db, hostId, metric, key, before), await readGaugeMean(db, hostId, metric, key, after)];
    gauges.push({ metric, key, unit: b.unit, before: b.mean, after: a.mean });
  }
  return {
    resolvedAtMs,
    measureAfterMs: occurrence.measureAfterMs,
    change: change ? { atMs: change.atMs, changes: [...change.changes] } : null,
    before,
    after,
    latency,
    gauges,
  };
}
