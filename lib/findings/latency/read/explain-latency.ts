import type { Sql } from '../../../db/sql';
import { NotFoundError } from '../../../errors';
import type { SketchWire } from '../../../protocol';
import type { LatencyExplanation, LatencyP99 } from '../../../protocol/findings';
import type { HostSeriesResponse } from '../../../protocol/read-api/series';
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../../../protocol/time';
import { coverRange, getHostSeries, getLatencyQuantiles, readWatermarks, segmentsAt } from '../../../series';
import { mergeHistograms } from '../../../series/merge-histograms';
import type { Watermarks } from '../../../series/resolution';
import { quantileOfWire } from '../../../sketch';
import { explainRegression } from '../explain-regression';
import type { GaugeObservation, RegionObservation } from '../facts';
import { inventoryLeadUpMs } from '../inventory-bursts';
import { readInventoryChanges } from './inventory-changes';
import { readHostPeers } from './host-peers';
import { CAUSE_GAUGES, DEFAULT_METHOD, MAX_NAMED_CPUS, STEAL_CONCENTRATION, type ExplainMethod } from '../method';
import { median } from '../rank-correlation';
import { EMPTY_WIRE, subtractWire } from '../wire';

export const BASELINE_MS = DAY_MS;
const MAX_BUCKETS = 1000;
const HOUR_BUCKET = `date_bin(INTERVAL '1 hour', x.ts, TIMESTAMPTZ '2000-01-01 00:00:00+00')`;

export interface ExplainLatencyQuery {
  hostId: number;
  /** The latency series. */
  name: string;
  /** The current range; default the hour before `now`. Its baseline is the 24 h before `from`. */
  from?: Date;
  to?: Date;
  now?: Date;
  method?: Partial<ExplainMethod>;
}

interface Scope {
  where: string;
  params: unknown[];
  byRegion: boolean;
}

const p99Of = (wire: SketchWire | undefined): LatencyP99 => ({
  p99Ms: wire && wire.count > 0 ? quantileOfWire(wire, 0.99) : null,
  requests: wire?.count ?? 0,
});

async function totalWire(sql: Sql, scope: Scope, fromMs: number, toMs: number, marks: Watermarks): Promise<SketchWire> {
  const [row] = await mergeHistograms(sql, { segments: coverRange(fromMs, toMs, marks), groups: [], ...scope });
  return row?.wire ?? EMPTY_WIRE;
}

async function hourlyWires(sql: Sql, scope: Scope, fromMs: number, toMs: number, marks: Watermarks): Promise<Map<number, SketchWire>> {
  const rows = await mergeHistograms(sql, { segments: segmentsAt('1h', fromMs, toMs, marks), groups: [HOUR_BUCKET], ...scope });
  return new Map(rows.map((row) => [new Date(row.groups[0] as Date).getTime(), row.wire]));
}

/** The median of the hours' p99s: a few bad hours (a regression that began before `from`) do not move it. */
function hourlyBaseline(hours: Iterable<SketchWire>): LatencyP99 & { hours: number; ofHours: number } {
  const withRequests = [...hours].filter((w) => w.count > 0);
  return {
    p99Ms: median(withRequests.map((w) => quantileOfWire(w, 0.99)!)),
    requests: withRequests.reduce((n, w) => n + w.count, 0),
    hours: withRequests.length,
    ofHours: BASELINE_MS / HOUR_MS,
  };
}

/** Per key of a series, the mean of its buckets' averages, and the averages by bucket start. */
function byKey(series: HostSeriesResponse): Map<string | null, { mean: number | null; points: Map<number, number> }> {
  return new Map(
    series.series.map((s) => {
      const points = new Map(s.points.flatMap((p) => (p.avg === null ? [] : [[p.t, p.avg] as const])));
      const values = [...points.values()];
      return [s.key, { mean: values.length ? values.reduce((a, b) => a + b, 0) / values.length : null, points }];
    }),
  );
}

/** The vCPUs steal concentrated on over the range, when per-CPU rows cover it (raw resolution). */
async function stolenCpus(sql: Sql, hostId: number, from: Date, to: Date, hostStealPct: number, now: Date): Promise<number[]> {
  const perCpu = await getHostSeries({ sql }, { hostId, metric: 'cpu_steal_per_cpu', from, to, maxPoints: MAX_BUCKETS }, { now });
  if (perCpu.resolution !== 'raw') return [];
  return [...byKey(perCpu)]
    .flatMap(([key, { mean }]) => (mean !== null && mean >= STEAL_CONCENTRATION * hostStealPct ? [{ cpu: Number(key), mean }] : []))
    .sort((a, b) => b.mean - a.mean)
    .slice(0, MAX_NAMED_CPUS)
    .map((c) => c.cpu);
}

async function observeGauges(sql: Sql, hostId: number, ranges: { from: Date; to: Date; baselineFrom: Date; baselineTo: Date; points: number; now: Date }) {
  const { from, to, baselineFrom, baselineTo, points, now } = ranges;
  const observations = await Promise.all(
    CAUSE_GAUGES.map(async (gauge) => {
      const [baseline, current] = await Promise.all([
        getHostSeries({ sql }, { hostId, metric: gauge.metric, from: baselineFrom, to: baselineTo, maxPoints: BASELINE_MS / HOUR_MS }, { now }),
        getHostSeries({ sql }, { hostId, metric: gauge.metric, from, to, maxPoints: points }, { now }),
      ]);
      const before = byKey(baseline);
      return [...byKey(current)].map(([key, now]): GaugeObservation => ({
        gauge,
        key,
        before: before.get(key)?.mean ?? null,
        after: now.mean,
        perMinute: now.points,
      }));
    }),
  );
  const gauges = observations.flat();
  const steal = gauges.find((o) => o.gauge.kind === 'steal');
  if (steal && steal.before !== null && steal.after !== null && steal.after - steal.before >= steal.gauge.minChange) {
    steal.cpus = await stolenCpus(sql, hostId, from, to, steal.after, now);
  }
  return gauges;
}

/**
 * Did this host's p99 of `name` regress over [from, to) against its own baseline (the 24 h before), and what
 * moved with it: the judgement of docs/findings/latency-explained.md, measured through the read API's own queries.
 */
export async function explainLatency(sql: Sql, query: ExplainLatencyQuery): Promise<LatencyExplanation> {
  const method = { ...DEFAULT_METHOD, ...query.method };
  const now = query.now ?? new Date();
  const to = query.to ?? now;
  const from = query.from ?? new Date(to.getTime() - HOUR_MS);
  const [fromMs, toMs] = [from.getTime(), to.getTime()];
  // Whole hours before `from`'s hour, as the findings rule's: an hour bucket that straddled `from` would put the range
  // into its own baseline, which a baseline of an hour or two (a new install) could not outvote.
  const baselineTo = new Date(floorTo(fromMs, HOUR_MS));
  const baselineFrom = new Date(baselineTo.getTime() - BASELINE_MS);
  const host = await readHostPeers(sql, query.hostId);
  if (!host) throw new NotFoundError(`host ${query.hostId} not found`);
  const marks = await readWatermarks(sql);
  const hostScope: Scope = { where: 'x.name = $1 AND h.id = $2', params: [query.name, query.hostId], byRegion: false };
  const regionScope: Scope = { where: 'x.name = $1 AND h.region = $2', params: [query.name, host.region], byRegion: true };
  const points = Math.min(MAX_BUCKETS, Math.max(1, Math.ceil((toMs - fromMs) / MINUTE_MS)));
  const leadUp = new Date(fromMs - inventoryLeadUpMs(toMs - fromMs));

  const [hostNow, hostHours, perMinute, regionNow, regionHours, inventory, gauges] = await Promise.all([
    totalWire(sql, hostScope, fromMs, toMs, marks),
    hourlyWires(sql, hostScope, baselineFrom.getTime(), baselineTo.getTime(), marks),
    getLatencyQuantiles({ sql }, { scope: { kind: 'host', hostId: query.hostId }, name: query.name, from, to, points }, { now }),
    host.others > 0 ? totalWire(sql, regionScope, fromMs, toMs, marks) : EMPTY_WIRE,
    host.others > 0 ? hourlyWires(sql, regionScope, baselineFrom.getTime(), baselineTo.getTime(), marks) : new Map<number, SketchWire>(),
    readInventoryChanges(sql, [query.hostId], leadUp, to),
    observeGauges(sql, query.hostId, { from, to, baselineFrom, baselineTo, points, now }),
  ]);

  const region: RegionObservation | null =
    host.others > 0
      ? {
          method: 'region-p99',
          region: host.region,
          otherHosts: host.others,
          baseline: hourlyBaseline([...regionHours].map(([t, wire]) => subtractWire(wire, hostHours.get(t) ?? EMPTY_WIRE))),
          current: p99Of(subtractWire(regionNow, hostNow)),
        }
      : null;
  const baseline = hourlyBaseline(hostHours.values());
  const current = p99Of(hostNow);
  const explained = explainRegression(
    {
      name: query.name,
      fromMs,
      toMs,
      baseline,
      current,
      perMinuteP99: new Map((perMinute.series?.buckets ?? []).flatMap((b) => (b.p99 === null ? [] : [[b.t, b.p99] as const]))),
      gauges,
      inventory: inventory.get(query.hostId) ?? [],
      region,
    },
    method,
  );
  return {
    hostId: query.hostId,
    hostname: host.hostname,
    hostRegion: host.region,
    name: query.name,
    range: { from: from.toISOString(), to: to.toISOString() },
    baselineRange: { from: baselineFrom.toISOString(), to: baselineTo.toISOString() },
    baseline,
    current,
    ...explained,
  };
}
