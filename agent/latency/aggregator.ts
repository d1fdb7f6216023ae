import type { LatencySeries } from '../../lib/protocol';
import { LatencySketch } from '../../lib/sketch';
import type { StatsdTiming } from './statsd';

/** The report carries at most 500 latency series (reportSchema.latency). */
export const MAX_LATENCY_SERIES = 500;
/** Bounds the memory spent remembering which series were refused within one interval. */
const MAX_REMEMBERED_DROPS = 10_000;

export type LatencyTiming = Pick<StatsdTiming, 'name' | 'valueMs' | 'tags'> & { sampleRate?: number };

export interface LatencyAggregator {
  /** False when the timing was not counted: a new series past maxSeries, or a value the sketch cannot hold. */
  record(timing: LatencyTiming): boolean;
  /** Counts lines (StatsD) or entries that could not be parsed, for `agent.malformedStatsdPackets`. */
  recordMalformed(count: number): void;
  /** Malformed lines since the last drain. Read it before drain(), which resets it. */
  malformedCount(): number;
  /** Distinct series refused since the last drain because maxSeries was reached. Reset by drain(). */
  droppedSeries(): number;
  /** One series per name + tag set seen since the last drain, tags sorted by key; then starts a new interval. */
  drain(): LatencySeries[];
}

interface SeriesState {
  name: string;
  tags: Record<string, string>;
  sketch: LatencySketch;
}

export function createLatencyAggregator({ maxSeries = MAX_LATENCY_SERIES }: { maxSeries?: number } = {}): LatencyAggregator {
  let series = new Map<string, SeriesState>();
  let dropped = new Set<string>();
  let malformed = 0;

  return {
    record(timing) {
      const key = seriesKey(timing.name, timing.tags);
      let state = series.get(key);
      if (state === undefined) {
        if (series.size >= maxSeries) {
          if (dropped.size < MAX_REMEMBERED_DROPS) dropped.add(key);
          return false;
        }
        state = { name: timing.name, tags: sortedTags(timing.tags), sketch: new LatencySketch() };
        series.set(key, state);
      }
      const sampleRate = timing.sampleRate ?? 1;
      if (state.sketch.add(timing.valueMs, 1 / sampleRate)) return true;
      malformed++;
      return false;
    },
    recordMalformed(count) {
      malformed += count;
    },
    malformedCount: () => malformed,
    droppedSeries: () => dropped.size,
    drain() {
      const out: LatencySeries[] = [];
      for (const state of series.values()) {
        const sketch = state.sketch.toWire();
        if (sketch.count > 0) out.push({ name: state.name, tags: state.tags, sketch });
      }
      series = new Map();
      dropped = new Set();
      malformed = 0;
      return out;
    },
  };
}

// The StatsD parser hands out one shared record per distinct tag set, so its key suffix is computed once.
const tagSuffixes = new WeakMap<Record<string, string>, string>();

function seriesKey(name: string, tags: Record<string, string>): string {
  let suffix = tagSuffixes.get(tags);
  if (suffix === undefined) {
    suffix = '';
    for (const k of Object.keys(tags).sort()) suffix += `\u0000${k}\u0001${tags[k]}`;
    tagSuffixes.set(tags, suffix);
  }
  return suffix === '' ? name : name + suffix;
}

function sortedTags(tags: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(tags).sort().map((k) => [k, tags[k]!]));
}
