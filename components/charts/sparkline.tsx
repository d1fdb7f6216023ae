import { sparklineGeometry, type SparkPoint } from './sparkline-geometry';

/** What a sparkline shows: the series' name and unit, its scale floor, and how values read aloud. */
export interface SparklineConfig {
  label: string;
  /** The y scale reaches at least this high, so small wiggles stay small. */
  minMax: number;
  format: (value: number) => string;
  width?: number;
  height?: number;
}

export function Sparkline({ points, fromMs, toMs, config }: { points: readonly SparkPoint[]; fromMs: number; toMs: number; config: SparklineConfig }) {
  const width = config.width ?? 64;
  const height = config.height ?? 22;
  const geometry = sparklineGeometry(points, { width, height, fromMs, toMs, minMax: config.minMax });
  if (geometry.path === '') return null;
  const summary = `${config.label}, last hour: latest ${config.format(geometry.last!)}, peak ${config.format(geometry.max!)}`;
  return (
    <svg className="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary}>
      <title>{summary}</title>
      <path d={geometry.path} fill="none" stroke="currentColor" strokeWidth={1.5} strokeLinejoin="round" />
      {geometry.lastPoint && <circle cx={geometry.lastPoint.x} cy={geometry.lastPoint.y} r={1.8} fill="currentColor" />}
    </svg>
  );
}
