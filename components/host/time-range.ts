import { DAY_MS, HOUR_MS, MINUTE_MS, ceilTo } from '@/lib/protocol/time';

/** The time ranges the host and compare pages offer, and the pure arithmetic of zooming and sharing them. */
export const RANGE_PRESETS = ['15m', '1h', '6h', '24h', '7d', '30d'] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];

export const PRESET_MS: Record<RangePreset, number> = {
  '15m': 15 * MINUTE_MS,
  '1h': HOUR_MS,
  '6h': 6 * HOUR_MS,
  '24h': DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
};

export const PRESET_LABEL: Record<RangePreset, string> = {
  '15m': '15 min',
  '1h': '1 h',
  '6h': '6 h',
  '24h': '24 h',
  '7d': '7 days',
  '30d': '30 days',
};

export const WEEK_MS = 7 * DAY_MS;
/** A drag narrower than this is a click, not a zoom: a few raw samples. */
export const MIN_ZOOM_MS = MINUTE_MS;
/** A relative range ends at now rounded up to this (what just happened is in it), so charts polled together ask alike. */
const NOW_STEP_MS = 10_000;
const MAX_SPAN_MS = 400 * DAY_MS;

/** Relative ranges follow now; absolute ones (a zoom, a custom range, a shared link) stay put. */
export type TimeRange = { kind: 'relative'; preset: RangePreset } | { kind: 'absolute'; fromMs: number; toMs: number };

export interface RangeUrlState {
  range: RangePreset;
  from: Date | null;
  to: Date | null;
}

/** The URL's range: pinned when both ends are there and in order, else the preset. */
export function toTimeRange(state: RangeUrlState): TimeRange {
  if (state.from && state.to) {
    const fromMs = state.from.getTime();
    const toMs = state.to.getTime();
    if (Number.isFinite(fromMs) && Number.isFinite(toMs) && fromMs < toMs && toMs - fromMs <= MAX_SPAN_MS) {
      return { kind: 'absolute', fromMs, toMs };
    }
  }
  return { kind: 'relative', preset: state.range };
}

export function resolveRange(range: TimeRange, nowMs: number): { fromMs: number; toMs: number } {
  if (range.kind === 'absolute') return { fromMs: range.fromMs, toMs: range.toMs };
  const toMs = ceilTo(nowMs, NOW_STEP_MS);
  return { fromMs: toMs - PRESET_MS[range.preset], toMs };
}

export function spanOf(range: TimeRange): number {
  return range.kind === 'absolute' ? range.toMs - range.fromMs : PRESET_MS[range.preset];
}

/** How often a live range polls: about once per pixel column's worth of time, between 10 s and 5 min. */
export function refreshMsFor(spanMs: number): number {
  if (spanMs <= HOUR_MS) return 10_000;
  if (spanMs <= 6 * HOUR_MS) return 30_000;
  if (spanMs <= DAY_MS) return 60_000;
  return 5 * MINUTE_MS;
}

/** The query-string range of a request: ISO ends, shifted back by `shiftMs` (the "same range last week" overlay). */
export function rangeParams(range: TimeRange, nowMs: number, shiftMs = 0): { from: string; to: string } {
  const { fromMs, toMs } = resolveRange(range, nowMs);
  return { from: new Date(fromMs - shiftMs).toISOString(), to: new Date(toMs - shiftMs).toISOString() };
}

/** A drag from `aMs` to `bMs` (either way round) as a range; null when too narrow to be meant. */
export function zoomSelection(aMs: number, bMs: number): { fromMs: number; toMs: number } | null {
  if (!Number.isFinite(aMs) || !Number.isFinite(bMs)) return null;
  const fromMs = Math.min(aMs, bMs);
  const toMs = Math.max(aMs, bMs);
  return toMs - fromMs >= MIN_ZOOM_MS ? { fromMs, toMs } : null;
}

/** The range scaled by `factor` around its middle (2 zooms out, 0.5 in), never past now nor narrower than MIN_ZOOM_MS. */
export function scaledRange(range: TimeRange, nowMs: number, factor: number): { fromMs: number; toMs: number } {
  const { fromMs, toMs } = resolveRange(range, nowMs);
  const span = Math.min(MAX_SPAN_MS, Math.max(MIN_ZOOM_MS, (toMs - fromMs) * factor));
  const middle = (fromMs + toMs) / 2;
  const end = Math.min(nowMs, Math.round(middle + span / 2));
  return { fromMs: Math.round(end - span), toMs: end };
}

/** The range moved by half its span, earlier (-1) or later (1); later stops at now. */
export function shiftedRange(range: TimeRange, nowMs: number, direction: -1 | 1): { fromMs: number; toMs: number } {
  const { fromMs, toMs } = resolveRange(range, nowMs);
  const span = toMs - fromMs;
  const end = Math.min(nowMs, toMs + (direction * span) / 2);
  return { fromMs: end - span, toMs: end };
}

/** What a shared link carries: the range as the sender sees it now, pinned. */
export function frozenRange(range: TimeRange, nowMs: number): { from: Date; to: Date } {
  const { fromMs, toMs } = resolveRange(range, nowMs);
  return { from: new Date(fromMs), to: new Date(toMs) };
}

/** The range "latency explained" judges: the page's, or its last 24 h when longer (it compares with the day before). */
export function explainRangeOf(range: TimeRange): TimeRange {
  if (spanOf(range) <= PRESET_MS['24h']) return range;
  if (range.kind === 'relative') return { kind: 'relative', preset: '24h' };
  return { kind: 'absolute', fromMs: range.toMs - PRESET_MS['24h'], toMs: range.toMs };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A time as an <input type="datetime-local"> value, in the viewer's zone. */
export function toLocalInputValue(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** An <input type="datetime-local"> value (the viewer's zone) as ms since the epoch; null when incomplete. */
export function fromLocalInputValue(value: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map((p) => Number(p ?? 0)) as [number, number, number, number, number, number];
  const d = new Date(year, month - 1, day, hour, minute, second);
  return d.getMonth() === month - 1 && d.getDate() === day ? d.getTime() : null;
}
