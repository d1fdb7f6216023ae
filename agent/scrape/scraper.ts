import type { LatencySeries, ServerSample } from '../../lib/protocol';
import type { Logger } from '../log';
import { bucketSketch, type PlacedBucket } from './bucket-sketch';
import { BATCH_RATIO, KNOWN_COUNTER_PAIRS, KNOWN_HISTOGRAMS, MS_PER_UNIT, PREEMPTION_COUNTERS, type HistogramSource, type MeanRole } from './catalog';
import { counterDelta, histogramDelta, type CounterReading, type HistogramReading } from './deltas';
import { parseExposition } from './exposition';
import { readTarget, type TargetReading } from './readings';
import { fetchExposition, type FetchLimits, type ScrapeTarget } from './target';

export const DEFAULT_SCRAPE_MAX_SERIES = 100;
const MAX_TAGS = 16;
const MAX_TAG_KEY = 100;
const MAX_TAG_VALUE = 200;
/** Counter series remembered per target, beyond which more label sets are ignored (bounded memory). */
const MAX_COUNTER_SERIES = 2000;

export interface ScraperOptions {
  targets: readonly ScrapeTarget[];
  /** Histograms the operator named (--scrape-histogram), besides the known ones. */
  histograms?: readonly HistogramSource[];
  /** Latency series kept over all targets; more are dropped, counted and logged. */
  maxSeries?: number;
  limits: FetchLimits;
  log: Logger;
  /** Test seam: how an exposition is fetched. */
  fetch?: (url: URL, limits: FetchLimits) => Promise<string>;
}

export interface ScrapeResult {
  latency: (LatencySeries & { bucketErrors: (number | null)[] })[];
  servers: ServerSample[];
}

export interface Scraper {
  /** Scrapes every target once; `nowMs` is the monotonic time rates are measured on. Never rejects. */
  collect(nowMs: number): Promise<ScrapeResult>;
}

interface TargetState {
  /** Whether a scrape of this target ever succeeded: the first one is a baseline and reports no deltas. */
  scraped: boolean;
  okAtMs: number;
  processStart: number | null;
  histograms: Map<string, HistogramReading>;
  counters: Map<string, CounterReading>;
  /** The reason last logged, so a failure is logged once until it changes or the target recovers. */
  loggedError: string | null;
  loggedDrops: string | null;
}

interface Means {
  durationMs: Record<MeanRole, number>;
  requests: Record<MeanRole, number>;
  seen: Record<MeanRole, boolean>;
}

function tagsFor(target: string, labels: Record<string, string>): Record<string, string> | string {
  const tags: Record<string, string> = {};
  for (const [key, value] of Object.entries(labels)) {
    // As Prometheus does with honor_labels off: the server's own label of that name steps aside.
    const name = key === 'scrape' ? 'exported_scrape' : key;
    if (name.length > MAX_TAG_KEY) return `label ${key} has a name longer than ${MAX_TAG_KEY} characters`;
    if (value.length > MAX_TAG_VALUE) return `label ${key} has a value longer than ${MAX_TAG_VALUE} characters`;
    tags[name] = value;
  }
  tags.scrape = target;
  if (Object.keys(tags).length > MAX_TAGS) return `more than ${MAX_TAGS - 1} labels`;
  return Object.fromEntries(Object.keys(tags).sort().map((k) => [k, tags[k]!]));
}

const MEAN_ROLES = ['latency', 'queue', 'token'] as const satisfies readonly MeanRole[];
const noMeans = (): Means => ({
  durationMs: { latency: 0, queue: 0, token: 0 },
  requests: { latency: 0, queue: 0, token: 0 },
  seen: { latency: false, queue: false, token: false },
});

const seriesKeyOf = (metric: string, tags: Record<string, string>) => `${metric}\u0000${JSON.stringify(tags)}`;

export function createScraper(options: ScraperOptions): Scraper {
  const { log, limits } = options;
  const fetch = options.fetch ?? fetchExposition;
  const maxSeries = options.maxSeries ?? DEFAULT_SCRAPE_MAX_SERIES;
  const sources = new Map<string, HistogramSource>();
  for (const source of [...KNOWN_HISTOGRAMS, ...(options.histograms ?? [])]) sources.set(source.metric, source);
  const histogramSources = [...sources.values()];
  const states = new Map<string, TargetState>(
    options.targets.map((t) => [
      t.name,
      { scraped: false, okAtMs: 0, processStart: null, histograms: new Map(), counters: new Map(), loggedError: null, loggedDrops: null },
    ]),
  );
  /** Latency series admitted under the bound, by series key → target name. A series keeps its slot while it exists. */
  const admitted = new Map<string, string>();

  function fail(target: ScrapeTarget, state: TargetState, reason: string): ServerSample {
    const message = reason.slice(0, 500);
    if (state.loggedError !== message) {
      log.warn('scrape failed; this interval has nothing from it', { scrape: target.name, url: target.url.href, error: message });
      state.loggedError = message;
    }
    return {
      name: target.name,
      ok: false,
      error: message,
      requestsPerS: null,
      latencyMeanMs: null,
      queueMeanMs: null,
      waiting: null,
      running: null,
      batchSize: null,
      droppedSeries: 0,
      tokenMeanMs: null,
      kvCachePct: null,
      preemptionsPerMin: null,
    };
  }

  function apply(target: ScrapeTarget, state: TargetState, reading: TargetReading, nowMs: number, out: ScrapeResult): ServerSample {
    const baseline = !state.scraped;
    const restarted = state.processStart !== null && reading.processStart !== null && reading.processStart !== state.processStart;
    const elapsedS = (nowMs - state.okAtMs) / 1000;
    const means = noMeans();
    const drops = new Map<string, number>();
    const drop = (reason: string) => drops.set(reason, (drops.get(reason) ?? 0) + 1);
    const seen = new Set<string>();
    const histograms = new Map<string, HistogramReading>();

    for (const [metric, series] of reading.histograms) {
      const source = sources.get(metric)!;
      const toMs = MS_PER_UNIT[source.unit];
      for (const { labels, reading: cur } of series.values()) {
        const tags = tagsFor(target.name, labels);
        if (typeof tags === 'string') {
          drop(tags);
          continue;
        }
        const key = seriesKeyOf(metric, tags);
        if (!admitted.has(key)) {
          if (admitted.size >= maxSeries) {
            drop(`over the bound of ${maxSeries} series (--scrape-max-series)`);
            continue;
          }
          admitted.set(key, target.name);
        }
        seen.add(key);
        histograms.set(key, cur);
        if (baseline) continue;
        const delta = histogramDelta(state.histograms.get(key), cur, restarted);
        if (delta.kind === 'inconsistent') {
          // Keep the older reading: the next scrape measures over both intervals.
          histograms.set(key, state.histograms.get(key)!);
          continue;
        }
        if (source.mean) {
          means.durationMs[source.mean] += delta.sum * toMs;
          means.requests[source.mean] += delta.count;
          means.seen[source.mean] = true;
        }
        const buckets: PlacedBucket[] = delta.perBucket.map((count, i) => ({
          lowerMs: i === 0 ? 0 : cur.bounds[i - 1]! * toMs,
          upperMs: cur.bounds[i]! * toMs,
          count,
        }));
        const placed = bucketSketch(buckets, delta.sum * toMs);
        if (placed) out.latency.push({ name: metric, tags, sketch: placed.sketch, bucketErrors: placed.bucketErrors });
      }
    }
    for (const [key, owner] of admitted) if (owner === target.name && !seen.has(key)) admitted.delete(key);

    const counters = new Map<string, CounterReading>();
    const counterDeltas = new Map<string, number>();
    for (const [name, series] of reading.counters) {
      let total = 0;
      for (const [labelKey, cur] of series) {
        const key = `${name}\u0000${labelKey}`;
        if (counters.size >= MAX_COUNTER_SERIES) break;
        counters.set(key, cur);
        if (!baseline) total += counterDelta(state.counters.get(key), cur, restarted);
      }
      counterDeltas.set(name, total);
    }
    if (!baseline) {
      // A counter pair is the server's own request mean: for its role it replaces what the histograms gave.
      const pairs = noMeans();
      for (const pair of KNOWN_COUNTER_PAIRS) {
        if (!counterDeltas.has(pair.duration)) continue;
        pairs.durationMs[pair.mean] += counterDeltas.get(pair.duration)! * MS_PER_UNIT[pair.unit];
        pairs.requests[pair.mean] += pair.requests.reduce((sum, name) => sum + (counterDeltas.get(name) ?? 0), 0);
        pairs.seen[pair.mean] = true;
      }
      for (const role of MEAN_ROLES) {
        if (!pairs.seen[role]) continue;
        means.durationMs[role] = pairs.durationMs[role];
        means.requests[role] = pairs.requests[role];
        means.seen[role] = true;
      }
    }
    const preemptions = PREEMPTION_COUNTERS.filter((name) => counterDeltas.has(name));
    const preemptionsPerMin = !baseline && preemptions.length > 0 && elapsedS > 0
      ? (preemptions.reduce((sum, name) => sum + counterDeltas.get(name)!, 0) * 60) / elapsedS
      : null;
    const executions = counterDeltas.get(BATCH_RATIO.executions);
    const batchFromRatio = !baseline && executions ? (counterDeltas.get(BATCH_RATIO.items) ?? 0) / executions : null;

    state.scraped = true;
    state.okAtMs = nowMs;
    state.processStart = reading.processStart;
    state.histograms = histograms;
    state.counters = counters;
    if (state.loggedError !== null) {
      log.info('scrape recovered', { scrape: target.name });
      state.loggedError = null;
    }
    const droppedSeries = [...drops.values()].reduce((a, b) => a + b, 0);
    const dropSummary = [...drops].map(([reason, n]) => `${n} ${reason}`).join('; ');
    if (droppedSeries > 0 && state.loggedDrops !== dropSummary) {
      log.warn('scrape: latency series dropped', { scrape: target.name, dropped: droppedSeries, why: dropSummary });
    }
    state.loggedDrops = droppedSeries > 0 ? dropSummary : null;

    const mean = (role: MeanRole) => (means.seen[role] && means.requests[role] > 0 ? means.durationMs[role] / means.requests[role] : null);
    return {
      name: target.name,
      ok: true,
      error: null,
      requestsPerS: !baseline && means.seen.latency && elapsedS > 0 ? means.requests.latency / elapsedS : null,
      latencyMeanMs: mean('latency'),
      queueMeanMs: mean('queue'),
      waiting: reading.gauges.waiting ?? null,
      running: reading.gauges.running ?? null,
      batchSize: reading.gauges.batchSize ?? batchFromRatio,
      droppedSeries,
      tokenMeanMs: mean('token'),
      kvCachePct: reading.kvCacheFraction === null ? null : reading.kvCacheFraction * 100,
      preemptionsPerMin,
    };
  }

  return {
    async collect(nowMs) {
      const out: ScrapeResult = { latency: [], servers: [] };
      const texts = await Promise.all(
        options.targets.map((target) => fetch(target.url, limits).then((text) => ({ text }), (err: Error) => ({ error: err.message }))),
      );
      options.targets.forEach((target, i) => {
        const state = states.get(target.name)!;
        const fetched = texts[i]!;
        if ('error' in fetched) return void out.servers.push(fail(target, state, fetched.error));
        let reading: TargetReading;
        try {
          reading = readTarget(parseExposition(fetched.text), histogramSources);
        } catch (err) {
          return void out.servers.push(fail(target, state, `malformed exposition: ${(err as Error).message}`));
        }
        out.servers.push(apply(target, state, reading, nowMs, out));
      });
      return out;
    },
  };
}
