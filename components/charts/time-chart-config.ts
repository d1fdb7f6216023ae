import type { AnnotationKind } from '@/lib/protocol/read-api/annotations';

/** What the time-series and stacked charts draw: rows on a shared time grid, and the series in them. */
export type SeriesKey = `s${number}`;

export interface ChartSeries {
  key: SeriesKey;
  label: string;
  color: string;
  /** Dash pattern (SVG stroke-dasharray); the "last week" overlay and series past the sixth colour use one. */
  dash?: string;
  /** A line over a stacked chart's areas (an overlay), rather than one of the stacked areas. */
  line?: boolean;
}

export type TimeRow = { t: number } & { [key: SeriesKey]: number | null | undefined };

export interface TimeChartData {
  rows: TimeRow[];
  series: ChartSeries[];
  fromMs: number;
  toMs: number;
  bucketMs: number;
}

/** A mark on the time axis: an inventory change, a finding or an alert opening or ending. */
export interface ChartAnnotation {
  t: number;
  kind: AnnotationKind;
  color: string;
  /** One glyph drawn at the top of the line. */
  glyph: string;
  /** The whole text, shown on hover. */
  text: string;
}

/** A horizontal line where values turn warning or critical, with what says so (a findings rule's threshold). */
export interface LevelLine {
  value: number;
  tone: 'warn' | 'bad';
  text: string;
}

interface BaseChartConfig {
  /** What the chart shows, for screen readers. */
  label: string;
  /** Drawn where they fall within the y axis; they do not stretch it. */
  levels?: readonly LevelLine[];
  format: (value: number) => string;
  /** The y axis reaches at least this high (a floor, so small values stay small). */
  yMinMax?: number;
  /** The y axis stops here (percentages of a whole). */
  yMax?: number;
  height?: number;
}

export interface TimeSeriesChartConfig extends BaseChartConfig {
  kind: 'time-series';
}

export interface StackedChartConfig extends BaseChartConfig {
  kind: 'stacked';
}

export type ChartConfig = TimeSeriesChartConfig | StackedChartConfig;

/** Props every time chart takes beside its data and config. */
export interface TimeChartInteraction {
  annotations: readonly ChartAnnotation[];
  /** Charts sharing it share one crosshair. */
  syncId?: string;
  /** A drag across the chart: the range it covered. */
  onZoom?: (fromMs: number, toMs: number) => void;
}

/** Buckets a chart asks the server for: a day at one-minute resolution, so ranges up to 24 h keep their minutes. */
export const CHART_MAX_POINTS = 1500;

const DASHES = [undefined, '6 3', '2 3', '8 3 2 3'];

/** Series `i`'s colour and dash: the six theme colours, then again dashed. */
export function seriesStyle(i: number): { color: string; dash?: string } {
  const dash = DASHES[Math.floor(i / 6) % DASHES.length];
  return { color: `var(--series-${(i % 6) + 1})`, ...(dash ? { dash } : {}) };
}

export const OVERLAY_DASH = '4 4';
