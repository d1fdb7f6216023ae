import { DEFAULT_MAX_POINTS, type SeriesResolution } from '../protocol/read-api/series';
import { processRetentionSetting, type RetentionDays } from './retention-config';
import { DAY_MS, HOUR_MS, MINUTE_MS, ceilTo, floorTo } from '../protocol/time';

const RAW_INTERVAL_MS = 10_000;

const RESOLUTION_STEP_MS: Record<SeriesResolution, number> = { raw: RAW_INTERVAL_MS, '1m': MINUTE_MS, '1h': HOUR_MS };
const FINEST_FIRST: SeriesResolution[] = ['raw', '1m', '1h'];

function retentionDaysOf(resolution: SeriesResolution, retention: RetentionDays): number {
  return resolution === 'raw' ? retention.raw : resolution === '1m' ? retention.oneMinute : retention.oneHour;
}

/** What the environment decides for a read, not its query: the clock, and retention (INFERWATCH_RETENTION_*). */
export interface ReadOptions {
  now?: Date;
  retention?: RetentionDays;
}

export interface ResolutionChoice {
  resolution: SeriesResolution;
  bucketMs: number;
}

/**
 * The finest resolution that still holds `from` and gives at most `maxPoints` buckets over the range; past the
 * coarsest, 1-hour rows are bucketed further.
 */
export function chooseResolution(input: {
  fromMs: number;
  toMs: number;
  nowMs: number;
  retention: RetentionDays;
  maxPoints?: number;
}): ResolutionChoice {
  const maxPoints = input.maxPoints ?? DEFAULT_MAX_POINTS;
  const rangeMs = input.toMs - input.fromMs;
  for (const resolution of FINEST_FIRST) {
    const kept = input.fromMs >= input.nowMs - retentionDaysOf(resolution, input.retention) * DAY_MS;
    const stepMs = RESOLUTION_STEP_MS[resolution];
    if (kept && rangeMs / stepMs <= maxPoints) return { resolution, bucketMs: stepMs };
  }
  const hourMs = RESOLUTION_STEP_MS['1h'];
  return { resolution: '1h', bucketMs: Math.ceil(rangeMs / maxPoints / hourMs) * hourMs };
}

/** chooseResolution for [from, to) with `options` filled from the process's settings. */
export function resolutionFor(from: Date, to: Date, maxPoints: number | undefined, options: ReadOptions): ResolutionChoice {
  return chooseResolution({
    fromMs: from.getTime(),
    toMs: to.getTime(),
    nowMs: (options.now ?? new Date()).getTime(),
    retention: options.retention ?? processRetentionSetting.get(),
    maxPoints,
  });
}

export interface Segment {
  resolution: SeriesResolution;
  fromMs: number;
  toMs: number;
}

export type Watermarks = Partial<Record<'1m' | '1h', Date>>;

/**
 * Where to read [from, to) at `resolution`: from its rollup up to that rollup's watermark, then from ever finer
 * levels for what is not rolled up yet, ending in raw rows.
 */
export function segmentsAt(resolution: SeriesResolution, fromMs: number, toMs: number, marks: Watermarks): Segment[] {
  const levels = FINEST_FIRST.slice(0, FINEST_FIRST.indexOf(resolution) + 1).reverse();
  const segments: Segment[] = [];
  let cursor = fromMs;
  for (const level of levels) {
    const end = level === 'raw' ? toMs : Math.min(toMs, marks[level]?.getTime() ?? -Infinity);
    if (end > cursor) {
      segments.push({ resolution: level, fromMs: cursor, toMs: end });
      cursor = end;
    }
  }
  return segments;
}

/**
 * The cheapest exact cover of [from, to) for totals: whole rolled-up hours from 1-hour rows, whole rolled-up
 * minutes around them from 1-minute rows, and the ragged edges from raw rows.
 */
export function coverRange(fromMs: number, toMs: number, marks: Watermarks): Segment[] {
  const segments: Segment[] = [];
  const push = (resolution: SeriesResolution, a: number, b: number) => {
    if (b > a) segments.push({ resolution, fromMs: a, toMs: b });
  };
  const fine = (a: number, b: number) => {
    const m0 = ceilTo(a, MINUTE_MS);
    const m1 = Math.min(floorTo(b, MINUTE_MS), floorTo(marks['1m']?.getTime() ?? -Infinity, MINUTE_MS));
    if (m0 >= m1) return push('raw', a, b);
    push('raw', a, m0);
    push('1m', m0, m1);
    push('raw', m1, b);
  };
  const h0 = ceilTo(fromMs, HOUR_MS);
  const h1 = Math.min(floorTo(toMs, HOUR_MS), floorTo(marks['1h']?.getTime() ?? -Infinity, HOUR_MS));
  if (h0 >= h1) {
    fine(fromMs, toMs);
  } else {
    fine(fromMs, h0);
    push('1h', h0, h1);
    fine(h1, toMs);
  }
  return segments;
}
