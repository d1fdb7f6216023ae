/** Pure geometry of a sparkline: points in time → an SVG path, gaps where a minute has no value. */
export interface SparkPoint {
  t: number;
  v: number | null;
}

export interface SparklineGeometry {
  /** SVG path data; a new `M` after every gap. Empty without any value. */
  path: string;
  /** The newest value, and the largest, for the accessible label. */
  last: number | null;
  max: number | null;
  /** Where the newest value sits, marked so a single minute still shows. */
  lastPoint: { x: number; y: number } | null;
}

export function sparklineGeometry(
  points: readonly SparkPoint[],
  box: { width: number; height: number; fromMs: number; toMs: number; minMax?: number },
): SparklineGeometry {
  const values = points.map((p) => p.v).filter((v): v is number => v !== null && Number.isFinite(v));
  if (values.length === 0) return { path: '', last: null, max: null, lastPoint: null };
  const max = Math.max(...values);
  // A floor on the scale keeps a flat 0.2 % line from filling the box as if it were a spike.
  const top = Math.max(max, box.minMax ?? 0) || 1;
  const span = Math.max(1, box.toMs - box.fromMs);
  const pad = 1;
  const x = (t: number) => ((t - box.fromMs) / span) * box.width;
  const y = (v: number) => pad + (1 - v / top) * (box.height - 2 * pad);
  let path = '';
  let drawing = false;
  let lastPoint: { x: number; y: number } | null = null;
  for (const point of [...points].sort((a, b) => a.t - b.t)) {
    if (point.v === null || !Number.isFinite(point.v)) {
      drawing = false;
      continue;
    }
    path += `${drawing ? 'L' : 'M'}${x(point.t).toFixed(1)},${y(point.v).toFixed(1)}`;
    lastPoint = { x: Number(x(point.t).toFixed(1)), y: Number(y(point.v).toFixed(1)) };
    drawing = true;
  }
  const last = [...points].sort((a, b) => a.t - b.t).reverse().find((p) => p.v !== null && Number.isFinite(p.v))?.v ?? null;
  return { path, last, max, lastPoint };
}
