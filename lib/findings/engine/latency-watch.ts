import type { Sql } from '../../db/sql';
import type { ThresholdOverride } from '../../protocol/findings';
import { p99RegressionScreen } from '../rules/latency.p99-regression';
import { readHostRegions } from '../read/facts/host-regions';
import { listThresholdOverrides } from '../store/threshold-overrides';
import { HOUR_MS, MINUTE_MS, floorTo } from '../../protocol/time';
import { readWatermarks } from '../../series';
import type { HostLatencyFacts, LatencySeriesFacts, PeerP99 } from '../latency/facts';
import { isRegression } from '../latency/explain-regression';
import { inventoryLeadUpMs } from '../latency/inventory-bursts';
import { DEFAULT_METHOD } from '../latency/method';
import { readHostObservations } from '../latency/read/observations';
import { SeriesRing } from '../latency/series-ring';
import { readTails } from '../latency/read/tails';
import { p99OfTails, type TailRow } from '../latency/tail-p99';

/** Thresholds of the rule that judges these facts, from its defaults and every override of it. */
export interface ScreenThresholds {
  ratio: number;
  minRiseMs: number;
  minRequests: number;
}

export interface LatencyWatchOptions {
  /** The rolled minutes judged. */
  windowMinutes?: number;
  baselineHours?: number;
  /** At most this many minutes (default 3) and hours (1) are read per cycle: a new one, or the backlog after a start. */
  minutesPerCycle?: number;
  hoursPerCycle?: number;
  /** Facts are given once the window is read and at least this many baseline hours are. */
  readyHours?: number;
  /** The loosest thresholds the rule may judge with (its defaults and overrides): whose gauges to read. */
  screen?: (overrides: readonly ThresholdOverride[]) => ScreenThresholds;
}

interface SeriesState {
  hostId: number;
  name: string;
  minutes: SeriesRing;
  hours: SeriesRing;
}

const seriesKey = (hostId: number, name: string) => `${hostId}\u0000${name}`;
const NO_MINUTES: ReadonlyMap<number, number> = new Map();

/**
 * The findings engine's view of every host's latency, kept between cycles: per host and series, the p99 of each
 * newly rolled minute (from the top buckets of its 1-minute histograms) and of each closed hour, in bounded rings.
 * A cycle reads only what was rolled since the last one; gauges and inventory changes are read only for the
 * hosts whose p99 the rule could judge regressed. See docs/findings/latency-explained.md, "In the findings cycle".
 */
export class LatencyWatch {
  private readonly series = new Map<string, SeriesState>();
  private readonly minutesRead = new Set<number>();
  private readonly hoursRead = new Set<number>();
  private readonly windowMinutes: number;
  private readonly baselineHours: number;

  constructor(private readonly options: LatencyWatchOptions = {}) {
    this.windowMinutes = options.windowMinutes ?? 15;
    this.baselineHours = options.baselineHours ?? 24;
  }

  /**
   * Every host's latency facts (or those of `hostIds`, without reading new buckets); an empty map while the window
   * and enough of the baseline are not read yet, so that findings stay as they are.
   */
  async read(sql: Sql, options: { hostIds?: readonly number[] } = {}): Promise<Map<number, HostLatencyFacts>> {
    const [marks, overrides, hosts] = await Promise.all([
      readWatermarks(sql),
      listThresholdOverrides({ sql }),
      readHostRegions(sql, options.hostIds),
    ]);
    if (!marks['1m']) return new Map();
    const windowTo = floorTo(marks['1m'].getTime(), MINUTE_MS);
    const windowFrom = windowTo - this.windowMinutes * MINUTE_MS;
    const baselineTo = floorTo(windowFrom, HOUR_MS);
    const baselineFrom = baselineTo - this.baselineHours * HOUR_MS;
    const hoursClosed = floorTo(marks['1h']?.getTime() ?? 0, HOUR_MS);
    if (!options.hostIds) {
      await this.advance(sql, hosts.map((h) => h.id), { windowFrom, windowTo, baselineFrom, baselineTo: Math.min(baselineTo, hoursClosed) });
    }
    const hoursRead = [...this.hoursRead].filter((t) => t >= baselineFrom && t < baselineTo).length;
    const windowRead = [...this.minutesRead].filter((t) => t >= windowFrom && t < windowTo).length;
    if (windowRead < this.windowMinutes || hoursRead < (this.options.readyHours ?? this.baselineHours / 2)) return new Map();

    const regionOf = new Map(hosts.map((h) => [h.id, h.region]));
    const facts = new Map<number, HostLatencyFacts>(hosts.map((h) => [h.id, { series: [] }]));
    const peers = new Map<string, PeerP99[]>();
    const states = new Map<LatencySeriesFacts, SeriesState>();
    const window = { fromMs: windowFrom, toMs: windowTo };
    const baselineRange = { fromMs: baselineFrom, toMs: baselineTo };
    for (const state of this.series.values()) {
      const region = regionOf.get(state.hostId);
      if (region === undefined) continue;
      const current = state.minutes.summary(windowFrom, windowTo);
      const baseline = state.hours.summary(baselineFrom, baselineTo);
      const series: LatencySeriesFacts = {
        name: state.name,
        window,
        current: { p99Ms: current.p99Ms, requests: current.count, minutes: current.buckets },
        baseline: { p99Ms: baseline.p99Ms, requests: baseline.count, hours: baseline.buckets, ofHours: this.baselineHours },
        baselineRange,
        perMinuteP99: NO_MINUTES,
        observed: null,
        peers: [],
      };
      const peerKey = `${region}\u0000${state.name}`;
      let list = peers.get(peerKey);
      if (!list) peers.set(peerKey, (list = []));
      list.push({ hostId: state.hostId, currentP99Ms: current.p99Ms, requests: current.count, baselineP99Ms: baseline.p99Ms, baselineHours: baseline.buckets });
      series.peers = list;
      facts.get(state.hostId)?.series.push(series);
      states.set(series, state);
    }

    const screen = (this.options.screen ?? p99RegressionScreen)(overrides);
    const wanted = new Set(options.hostIds ?? regionOf.keys());
    const flagged = [...states.keys()].filter(
      (s) =>
        wanted.has(states.get(s)!.hostId) &&
        s.current.requests >= screen.minRequests &&
        s.baseline.hours >= DEFAULT_METHOD.minBaselineHours &&
        isRegression(s.current.p99Ms, s.baseline.p99Ms, screen.ratio, screen.minRiseMs),
    );
    const observed = await readHostObservations(sql, [...new Set(flagged.map((s) => states.get(s)!.hostId))], {
      windowFromMs: windowFrom,
      windowToMs: windowTo,
      baselineFromMs: baselineFrom,
      baselineToMs: baselineTo,
      inventoryFromMs: windowFrom - inventoryLeadUpMs(windowTo - windowFrom),
    });
    for (const s of flagged) {
      const state = states.get(s)!;
      s.observed = observed.get(state.hostId) ?? null;
      s.perMinuteP99 = new Map(state.minutes.within(windowFrom, windowTo).map((m) => [m.t, m.p99Ms]));
    }
    if (options.hostIds) for (const id of facts.keys()) if (!wanted.has(id)) facts.delete(id);
    return facts;
  }

  /** Reads the window's minutes and the baseline's hours not read yet, newest first, a few per cycle. */
  private async advance(sql: Sql, hostIds: number[], r: { windowFrom: number; windowTo: number; baselineFrom: number; baselineTo: number }) {
    const missing = (read: Set<number>, from: number, to: number, step: number, limit: number) => {
      const out: number[] = [];
      for (let t = to - step; t >= from && out.length < limit; t -= step) if (!read.has(t)) out.push(t);
      return out;
    };
    const minutes = missing(this.minutesRead, r.windowFrom, r.windowTo, MINUTE_MS, this.options.minutesPerCycle ?? 3);
    const hours = missing(this.hoursRead, r.baselineFrom, r.baselineTo, HOUR_MS, this.options.hoursPerCycle ?? 1);
    const [minuteRows, hourRows] = await Promise.all([readTails(sql, '1m', hostIds, minutes), readTails(sql, '1h', hostIds, hours)]);
    this.store(minuteRows, 'minutes');
    this.store(hourRows, 'hours');
    for (const t of minutes) this.minutesRead.add(t);
    for (const t of hours) this.hoursRead.add(t);
    for (const t of this.minutesRead) if (t < r.windowFrom) this.minutesRead.delete(t);
    for (const t of this.hoursRead) if (t < r.baselineFrom) this.hoursRead.delete(t);
    const known = new Set(hostIds);
    for (const [key, state] of this.series) {
      const stale = state.minutes.summary(r.windowFrom, r.windowTo).buckets === 0 && state.hours.summary(r.baselineFrom, r.baselineTo + HOUR_MS).buckets === 0;
      if (!known.has(state.hostId) || stale) this.series.delete(key);
    }
  }

  private store(rows: readonly TailRow[], ring: 'minutes' | 'hours'): void {
    for (let i = 0; i < rows.length; ) {
      let j = i + 1;
      const first = rows[i]!;
      const t = first.ts;
      while (j < rows.length && rows[j]!.host_id === first.host_id && rows[j]!.name === first.name && rows[j]!.ts === t) j++;
      const { p99Ms, count } = p99OfTails(rows.slice(i, j));
      const key = seriesKey(first.host_id, first.name);
      let state = this.series.get(key);
      if (!state) {
        state = {
          hostId: first.host_id,
          name: first.name,
          minutes: new SeriesRing(MINUTE_MS, this.windowMinutes),
          hours: new SeriesRing(HOUR_MS, this.baselineHours + 1),
        };
        this.series.set(key, state);
      }
      state[ring].set(t, p99Ms, count);
      i = j;
    }
  }
}
