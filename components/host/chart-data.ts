import type { HostAnnotation } from '@/lib/protocol/read-api/annotations';
import type { LatencyQuantiles, LatencyResponse } from '@/lib/protocol/read-api/latency';
import type { HostSeriesResponse, SeriesPoint } from '@/lib/protocol/read-api/series';
import { MAX_CHART_ROWS, bucketStarts, gridStepMs } from '../charts/time-axis';
import { OVERLAY_DASH, seriesStyle, type ChartAnnotation, type ChartSeries, type TimeChartData, type TimeRow } from '../charts/time-chart-config';

/** Pure shaping of read-API responses into what the time charts draw: rows on one bucket grid, series, marks. */

export interface MetricInput {
  /** The metric's name in the legend ("read", "user"). */
  label: string;
  response: HostSeriesResponse | undefined;
}

export interface ShapeOptions {
  /** Names a keyed series' key: "nvme0n1", "vCPU 3". */
  keyLabel?: (key: string) => string;
  value?: 'avg' | 'max';
  /** Keep this many series, those with the highest peaks. */
  maxSeries?: number;
}

interface Entry {
  label: string;
  points: { t: number; v: number | null }[];
  peak: number;
}

function entriesOf(inputs: readonly MetricInput[], options: ShapeOptions): Entry[] {
  const pick = options.value ?? 'avg';
  const keyLabel = options.keyLabel ?? ((key: string) => key);
  return inputs.flatMap((input) =>
    (input.response?.series ?? []).map((series) => {
      const label =
        series.key === null ? input.label : inputs.length === 1 ? keyLabel(series.key) : `${keyLabel(series.key)} ${input.label}`;
      const points = series.points.map((p: SeriesPoint) => ({ t: p.t, v: p[pick] }));
      const peak = Math.max(-Infinity, ...points.map((p) => p.v ?? -Infinity));
      return { label, points, peak };
    }),
  );
}

/** Puts points on the rows' grid (shifted by `shiftMs`); points sharing a row are averaged, or their peak taken. */
function place(rows: TimeRow[], stepMs: number, key: `s${number}`, points: readonly { t: number; v: number | null }[], shiftMs = 0, combine: 'avg' | 'max' = 'avg') {
  if (rows.length === 0) return;
  const first = rows[0]!.t;
  const sums = new Map<number, { sum: number; n: number; max: number }>();
  for (const point of points) {
    const index = Math.floor((point.t + shiftMs - first) / stepMs);
    if (index < 0 || index >= rows.length || point.v === null || !Number.isFinite(point.v)) continue;
    const acc = sums.get(index) ?? { sum: 0, n: 0, max: -Infinity };
    sums.set(index, { sum: acc.sum + point.v, n: acc.n + 1, max: Math.max(acc.max, point.v) });
  }
  rows.forEach((row, i) => {
    const acc = sums.get(i);
    row[key] = acc ? (combine === 'max' ? acc.max : acc.sum / acc.n) : null;
  });
}

/** The range of a chart (its first answered response's) and its rows, on a step fitted to how dense the points are. */
function frameOf(responses: readonly ({ from: string; to: string; bucketMs: number } | undefined)[], timestamps: readonly (readonly number[])[]) {
  const first = responses.find((r) => r !== undefined);
  if (!first) return null;
  const fromMs = new Date(first.from).getTime();
  const toMs = new Date(first.to).getTime();
  const bucketMs = gridStepMs(timestamps, first.bucketMs, { spanMs: toMs - fromMs, maxRows: MAX_CHART_ROWS });
  return { fromMs, toMs, bucketMs, rows: bucketStarts(fromMs, toMs, bucketMs).map((t) => ({ t }) as TimeRow) };
}

export interface ShapedChart extends TimeChartData {
  /** Series left out by maxSeries. */
  hiddenSeries: number;
  /** Whether any bucket has a value. */
  hasData: boolean;
}

/** Every metric × key as one series on the first response's grid, missing buckets null (a gap, not a zero). */
export function seriesChartData(inputs: readonly MetricInput[], options: ShapeOptions = {}): ShapedChart | null {
  let entries = entriesOf(inputs, options);
  const frame = frameOf(inputs.map((i) => i.response), entries.map((e) => e.points.filter((p) => p.v !== null).map((p) => p.t)));
  if (!frame) return null;
  let hiddenSeries = 0;
  if (options.maxSeries !== undefined && entries.length > options.maxSeries) {
    hiddenSeries = entries.length - options.maxSeries;
    entries = [...entries].sort((a, b) => b.peak - a.peak || a.label.localeCompare(b.label)).slice(0, options.maxSeries);
  }
  const series: ChartSeries[] = entries.map((entry, i) => ({ key: `s${i}`, label: entry.label, ...seriesStyle(i) }));
  entries.forEach((entry, i) => place(frame.rows, frame.bucketMs, `s${i}`, entry.points, 0, options.value ?? 'avg'));
  return { ...frame, series, hiddenSeries, hasData: entries.some((e) => e.points.some((p) => p.v !== null)) };
}

/**
 * Adds the same range `shiftMs` earlier as dashed lines on the current grid: per series (matched by label, in its
 * colour), or for a stacked chart one line of the stack's total.
 */
export function withOverlay(
  chart: ShapedChart,
  inputs: readonly MetricInput[],
  shiftMs: number,
  mode: 'each' | 'total',
  options: ShapeOptions = {},
): ShapedChart {
  const entries = entriesOf(inputs, { ...options, maxSeries: undefined });
  if (entries.length === 0) return chart;
  const rows = chart.rows.map((row) => ({ ...row }));
  const series = [...chart.series];
  const add = (label: string, color: string, points: { t: number; v: number | null }[]) => {
    const key = `s${series.length}` as const;
    series.push({ key, label, color, dash: OVERLAY_DASH, line: true });
    place(rows, chart.bucketMs, key, points, shiftMs, options.value ?? 'avg');
  };
  if (mode === 'total') {
    const sums = new Map<number, number>();
    for (const entry of entries) for (const p of entry.points) if (p.v !== null) sums.set(p.t, (sums.get(p.t) ?? 0) + p.v);
    add('total, a week earlier', 'var(--text)', [...sums].map(([t, v]) => ({ t, v })));
  } else {
    for (const entry of entries) {
      const current = chart.series.find((s) => s.label === entry.label);
      if (!current) continue;
      add(`${entry.label}, a week earlier`, current.color, entry.points);
    }
  }
  return { ...chart, rows, series };
}

const LATENCY_LINES = [
  { quantile: 'p50', label: 'p50' },
  { quantile: 'p95', label: 'p95' },
  { quantile: 'p99', label: 'p99' },
] as const;

/** p50, p95 and p99 per bucket of one latency series (buckets without requests are gaps), optionally last week's p99. */
export function latencyChartData(response: LatencyResponse | undefined, overlay?: { response: LatencyResponse | undefined; shiftMs: number }): ShapedChart | null {
  const buckets = response?.series;
  if (!response || !buckets) return null;
  const withRequests = buckets.buckets.filter((b) => b.count > 0).map((b) => b.t);
  const frame = frameOf([{ from: response.from, to: response.to, bucketMs: buckets.bucketMs }], [withRequests])!;
  const series: ChartSeries[] = LATENCY_LINES.map((line, i) => ({ key: `s${i}`, label: line.label, ...seriesStyle(i) }));
  LATENCY_LINES.forEach((line, i) =>
    place(frame.rows, frame.bucketMs, `s${i}`, buckets.buckets.map((b) => ({ t: b.t, v: b.count > 0 ? b[line.quantile] : null }))),
  );
  const chart: ShapedChart = { ...frame, series, hiddenSeries: 0, hasData: buckets.buckets.some((b) => b.count > 0) };
  const old = overlay?.response?.series;
  if (!old) return chart;
  series.push({ key: 's3', label: 'p99, a week earlier', color: series[2]!.color, dash: OVERLAY_DASH, line: true });
  place(frame.rows, frame.bucketMs, 's3', old.buckets.map((b) => ({ t: b.t, v: b.count > 0 ? b.p99 : null })), overlay.shiftMs);
  return chart;
}

/**
 * What the latency chart may claim about its precision: quantiles from a model server's histogram cannot be finer
 * than its buckets, so they say so and by how much (the widest error of the quantiles drawn); null for the agent's
 * own sketches.
 */
export function latencyResolutionNote(total: LatencyQuantiles | undefined): string | null {
  const errors = total?.bucketError;
  if (!errors) return null;
  const drawn = LATENCY_LINES.map((line) => ({ label: line.label, error: errors[line.quantile] }));
  const bounded = drawn.map((d) => d.error).filter((e): e is number => e !== null);
  const widest = bounded.length ? Math.max(...bounded) : null;
  const open = drawn.filter((d) => d.error === null).map((d) => d.label);
  const pct = widest === null ? null : `±${widest >= 0.1 ? Math.round(widest * 100) : (widest * 100).toFixed(1)} %`;
  const parts = [`From the server’s buckets${pct ? ` (${pct})` : ''}, not the agent’s 0.8 % sketch.`];
  if (open.length) parts.push(`${open.join(', ')} fell beyond its top bucket: the true value is higher than drawn.`);
  return parts.join(' ');
}

const SEVERITY_COLOR = { critical: 'var(--bad)', warning: 'var(--warn)', info: 'var(--info)' } as const;

/** Marks for the charts: colour by what happened (green when something ended), one glyph, the full text on hover. */
export function chartAnnotations(annotations: readonly HostAnnotation[]): ChartAnnotation[] {
  return annotations.map((a) => {
    const severityColor = a.severity ? SEVERITY_COLOR[a.severity] : 'var(--info)';
    switch (a.kind) {
      case 'inventory':
        return { t: a.t, kind: a.kind, color: 'var(--info)', glyph: 'I', text: `Inventory changed: ${a.detail}` };
      case 'finding-opened':
        return { t: a.t, kind: a.kind, color: severityColor, glyph: 'F', text: `Finding opened: ${a.title} — ${a.detail}` };
      case 'finding-resolved':
        return { t: a.t, kind: a.kind, color: 'var(--ok)', glyph: 'F', text: `Finding resolved: ${a.title}` };
      case 'alert-fired':
        return { t: a.t, kind: a.kind, color: severityColor, glyph: 'A', text: `Alert fired: ${a.title}${a.detail ? ` — ${a.detail}` : ''}` };
      case 'alert-resolved':
        return { t: a.t, kind: a.kind, color: 'var(--ok)', glyph: 'A', text: `Alert resolved: ${a.title}` };
    }
  });
}
