import type { LatencySeries } from '../../lib/protocol';
import { bucketSketch, type PlacedBucket } from '../scrape/bucket-sketch';
import { MS_PER_UNIT, type TimeUnit } from '../scrape/catalog';
import { histogramDelta } from '../scrape/deltas';
import { GEN_AI_HISTOGRAMS, unitOf, type OtlpHistogramSpec } from './catalog';
import { PointError, attributeTags, exponentialDelta, readExplicitPoint, readExponentialPoint, type ExponentialReading, type PointReading as Reading } from './points';
import type { OtlpAttribute, OtlpExponentialPoint, OtlpHistogramPoint, OtlpMetric, OtlpRequest } from './wire';

export const DEFAULT_OTLP_MAX_SERIES = 100;
const MAX_TAGS = 16;
const MAX_TAG_KEY = 100;
const MAX_TAG_VALUE = 200;
/** A series not heard from in this many intervals is forgotten, so an exporter's old label sets free their slots. */
const FORGET_AFTER_DRAINS = 30;

const DELTA = 1;
const CUMULATIVE = 2;

export interface OtlpAcceptResult {
  /** Data points of the histograms the agent reads, used. */
  accepted: number;
  /** Data points refused, with the first reason: malformed, in an unknown unit, or over the series bound. */
  rejected: number;
  reason: string | null;
}

export type OtlpLatencySeries = LatencySeries & { bucketErrors: (number | null)[] };

export interface OtlpAccumulator {
  accept(request: OtlpRequest): OtlpAcceptResult;
  /** The interval's latency series, one per metric + tag set; then starts a new interval. */
  drain(): OtlpLatencySeries[];
}

export interface OtlpAccumulatorOptions {
  histograms?: readonly OtlpHistogramSpec[];
  maxSeries?: number;
  /**
   * When the agent started, in Unix ns. A cumulative series first heard of is a baseline (what it counted before was
   * reported by an earlier agent or is lost), unless its start time is later: then all of it happened since.
   */
  startedAtNs: number;
}

/** What a point adds to its interval. */
type Part = { kind: 'explicit'; bounds: number[]; perBucket: number[]; sum: number } | { kind: 'exponential'; reading: ExponentialReading };

function whole(reading: Reading): Part {
  if (reading.kind === 'exponential') return reading;
  const { bounds, cumulative, sum } = reading.reading;
  return { kind: 'explicit', bounds, perBucket: cumulative.map((c, i) => c - (i === 0 ? 0 : cumulative[i - 1]!)), sum };
}

interface SeriesState {
  name: string;
  tags: Record<string, string>;
  /** The last cumulative reading, to subtract from the next one. */
  last: Reading | null;
  /** The end time of the newest point used: a point not after it is a retry of one already counted. */
  lastTimeNs: number;
  buckets: Map<string, PlacedBucket>;
  sumMs: number;
  drainsUnseen: number;
}

const seriesKeyOf = (name: string, tags: Record<string, string>) => `${name}\u0000${JSON.stringify(tags)}`;

function tagsFor(resource: Record<string, string>, attributes: readonly OtlpAttribute[]): Record<string, string> {
  const tags = attributeTags(attributes);
  // The resource's service.name says which program sent the point, as `scrape` says which target was scraped.
  if ('service' in tags) {
    tags.exported_service = tags.service!;
    delete tags.service;
  }
  tags.service = resource['service.name'] ?? 'unknown_service';
  for (const [key, value] of Object.entries(tags)) {
    if (key.length > MAX_TAG_KEY) throw new PointError(`attribute ${key.slice(0, 40)}… has a name longer than ${MAX_TAG_KEY} characters`);
    if (value.length > MAX_TAG_VALUE) throw new PointError(`attribute ${key} has a value longer than ${MAX_TAG_VALUE} characters`);
  }
  if (Object.keys(tags).length > MAX_TAGS) throw new PointError(`more than ${MAX_TAGS - 1} attributes`);
  return Object.fromEntries(Object.keys(tags).sort().map((k) => [k, tags[k]!]));
}

function explicitBuckets(perBucket: readonly number[], bounds: readonly number[], toMs: number): PlacedBucket[] {
  return perBucket.map((count, i) => ({ lowerMs: i === 0 ? 0 : bounds[i - 1]! * toMs, upperMs: bounds[i]! * toMs, count }));
}

function exponentialBuckets(reading: ExponentialReading, toMs: number): PlacedBucket[] {
  const step = 2 ** -reading.scale;
  const out: PlacedBucket[] = [{ lowerMs: 0, upperMs: reading.zeroThreshold * toMs, count: reading.zeroCount }];
  for (const [index, count] of reading.counts) out.push({ lowerMs: 2 ** (index * step) * toMs, upperMs: 2 ** ((index + 1) * step) * toMs, count });
  return out;
}

/**
 * Turns OTLP histogram points into per-interval latency series with the same bucket honesty as scraping: each bucket's
 * count placed in the sketch with the error its width allows. Delta points are added as they come; cumulative ones
 * are subtracted from the previous point of their series, and a new start time (a restarted exporter) or counts that
 * went down make the point itself the delta. A point whose end time is not after the last one used is a retry and
 * counts nothing, so nothing is counted twice.
 */
export function createOtlpAccumulator(options: OtlpAccumulatorOptions): OtlpAccumulator {
  const maxSeries = options.maxSeries ?? DEFAULT_OTLP_MAX_SERIES;
  const named = new Map<string, TimeUnit | null>(GEN_AI_HISTOGRAMS.map((m) => [m, null]));
  for (const spec of options.histograms ?? []) named.set(spec.metric, spec.unit);
  const series = new Map<string, SeriesState>();

  function stateFor(name: string, tags: Record<string, string>): SeriesState {
    const key = seriesKeyOf(name, tags);
    let state = series.get(key);
    if (!state) {
      if (series.size >= maxSeries) throw new PointError(`over the bound of ${maxSeries} series (--otlp-max-series)`);
      state = { name, tags, last: null, lastTimeNs: -Infinity, buckets: new Map(), sumMs: 0, drainsUnseen: 0 };
      series.set(key, state);
    }
    state.drainsUnseen = 0;
    return state;
  }

  function add(state: SeriesState, buckets: readonly PlacedBucket[], sum: number, toMs: number): void {
    for (const bucket of buckets) {
      if (bucket.count === 0) continue;
      const key = `${bucket.lowerMs}|${bucket.upperMs}`;
      const entry = state.buckets.get(key);
      if (entry) entry.count += bucket.count;
      else state.buckets.set(key, { ...bucket });
    }
    state.sumMs += sum * toMs;
  }

  /** The part of a point not counted yet, or null when it adds nothing (a baseline or a retry). */
  function newPart(state: SeriesState, temporality: number, cur: Reading, startNs: number): Part | null {
    if (temporality === DELTA) return whole(cur);
    const last = state.last;
    state.last = cur;
    if (!last) return startNs >= options.startedAtNs ? whole(cur) : null;
    if (last.kind === 'explicit' && cur.kind === 'explicit') {
      const delta = histogramDelta(last.reading, cur.reading);
      if (delta.kind !== 'inconsistent') return { kind: 'explicit', bounds: cur.reading.bounds, perBucket: delta.perBucket, sum: delta.sum };
      // Keep the older reading: the next point is measured against it.
      state.last = last;
      return null;
    }
    if (last.kind === 'exponential' && cur.kind === 'exponential') return { kind: 'exponential', reading: exponentialDelta(last.reading, cur.reading) ?? cur.reading };
    return whole(cur);
  }

  function acceptPoint(name: string, toMs: number, temporality: number, resource: Record<string, string>, point: OtlpHistogramPoint | OtlpExponentialPoint, kind: Reading['kind']): void {
    if (temporality !== DELTA && temporality !== CUMULATIVE) throw new PointError('aggregation temporality is neither delta nor cumulative');
    const reading: Reading =
      kind === 'explicit'
        ? { kind, reading: readExplicitPoint(point as OtlpHistogramPoint) }
        : { kind, reading: readExponentialPoint(point as OtlpExponentialPoint) };
    const state = stateFor(name, tagsFor(resource, point.attributes));
    if (point.timeUnixNano <= state.lastTimeNs) return;
    state.lastTimeNs = point.timeUnixNano;
    const part = newPart(state, temporality, reading, point.startTimeUnixNano);
    if (part?.kind === 'explicit') add(state, explicitBuckets(part.perBucket, part.bounds, toMs), part.sum, toMs);
    else if (part) add(state, exponentialBuckets(part.reading, toMs), part.reading.sum, toMs);
  }

  function unitFor(metric: OtlpMetric): number {
    const unit = named.get(metric.name) ?? unitOf(metric.unit);
    if (!unit) throw new PointError(`${metric.name} is in "${metric.unit}", not a duration unit (s, ms, us); give it with --otlp-histogram ${metric.name}@UNIT`);
    return MS_PER_UNIT[unit];
  }

  return {
    accept(request) {
      const result: OtlpAcceptResult = { accepted: 0, rejected: 0, reason: null };
      const refuse = (n: number, reason: string) => {
        result.rejected += n;
        result.reason ??= reason;
      };
      for (const resourceMetrics of request.resourceMetrics) {
        const resource = attributeTags(resourceMetrics.resource?.attributes ?? []);
        for (const scope of resourceMetrics.scopeMetrics) {
          for (const metric of scope.metrics) {
            if (!named.has(metric.name)) continue;
            const data = metric.histogram ?? metric.exponentialHistogram;
            if (!data) continue;
            const kind = metric.histogram ? 'explicit' : 'exponential';
            let toMs: number;
            try {
              toMs = unitFor(metric);
            } catch (err) {
              refuse(data.dataPoints.length, (err as Error).message);
              continue;
            }
            for (const point of data.dataPoints) {
              try {
                acceptPoint(metric.name, toMs, data.aggregationTemporality, resource, point, kind);
                result.accepted++;
              } catch (err) {
                if (!(err instanceof PointError)) throw err;
                refuse(1, `${metric.name}: ${err.message}`);
              }
            }
          }
        }
      }
      return result;
    },
    drain() {
      const out: OtlpLatencySeries[] = [];
      for (const [key, state] of series) {
        const placed = state.buckets.size > 0 ? bucketSketch([...state.buckets.values()], state.sumMs) : null;
        if (placed) out.push({ name: state.name, tags: state.tags, sketch: placed.sketch, bucketErrors: placed.bucketErrors });
        state.buckets = new Map();
        state.sumMs = 0;
        if (++state.drainsUnseen > FORGET_AFTER_DRAINS) series.delete(key);
      }
      return out;
    },
  };
}
