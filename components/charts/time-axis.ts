import { DAY_MS } from '@/lib/protocol/time';

/** Pure helpers of the time axis: tick labels in the viewer's zone, the synced crosshair, the bucket grid. */

/** A tick label that says as much as the span needs: the time within a day, the day (and hour) beyond. */
export function formatTick(ms: number, spanMs: number, timeZone?: string): string {
  const options: Intl.DateTimeFormatOptions =
    spanMs <= DAY_MS
      ? { hour: '2-digit', minute: '2-digit', ...(spanMs <= 15 * 60_000 ? { second: '2-digit' } : {}) }
      : spanMs <= 3 * DAY_MS
        ? { weekday: 'short', hour: '2-digit', minute: '2-digit' }
        : { month: 'short', day: 'numeric' };
  return new Intl.DateTimeFormat(undefined, { ...options, timeZone }).format(new Date(ms));
}

/**
 * The crosshair's sync method: the receiving chart's tick nearest the hovered time (charts of one page may have
 * different grids, e.g. a latency series with gaps), or -1 when the hovered time is off its axis.
 */
export function nearestTickIndex(ticks: ReadonlyArray<{ value: unknown; index: number }>, activeLabel: unknown): number {
  const target = Number(activeLabel);
  if (!Number.isFinite(target) || ticks.length === 0) return -1;
  let best = -1;
  let bestDistance = Infinity;
  for (let i = 0; i < ticks.length; i++) {
    const distance = Math.abs(Number(ticks[i]!.value) - target);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = i;
    }
  }
  return best;
}

// date_bin's origin on the server (lib/series): buckets start at ORIGIN + k × bucket.
const ORIGIN_MS = Date.UTC(2000, 0, 1);

/** The starts of every bucket of `bucketMs` overlapping [fromMs, toMs), as the server bins them. */
export function bucketStarts(fromMs: number, toMs: number, bucketMs: number, maxBuckets = 6000): number[] {
  if (!(bucketMs > 0) || !(toMs > fromMs)) return [];
  const first = ORIGIN_MS + Math.floor((fromMs - ORIGIN_MS) / bucketMs) * bucketMs;
  const out: number[] = [];
  for (let t = first; t < toMs && out.length < maxBuckets; t += bucketMs) out.push(t);
  return out;
}

/**
 * The step a chart draws on: the server's bucket, widened to a multiple of it when the points are sparser (an agent
 * reporting every 30 s read at 10 s buckets), so a line joins its points and breaks only where reports are missing.
 */
export function gridStepMs(timestamps: readonly (readonly number[])[], bucketMs: number, fit?: { spanMs: number; maxRows: number }): number {
  if (!(bucketMs > 0)) return bucketMs;
  const gaps: number[] = [];
  for (const list of timestamps) for (let i = 1; i < list.length; i++) if (list[i]! > list[i - 1]!) gaps.push(list[i]! - list[i - 1]!);
  gaps.sort((a, b) => a - b);
  const sparse = gaps.length ? Math.max(1, Math.round(gaps[Math.floor((gaps.length - 1) / 2)]! / bucketMs)) : 1;
  // More rows than a chart has pixel columns cost render time and show nothing more.
  const fitted = fit ? Math.max(1, Math.ceil(fit.spanMs / fit.maxRows / bucketMs)) : 1;
  return Math.max(sparse, fitted) * bucketMs;
}

/** Rows a time chart draws at most: about the pixel columns of a chart on a wide screen. */
export const MAX_CHART_ROWS = 720;
