'use client';

import { useRef, useState } from 'react';
import { CartesianGrid, Legend, Tooltip, XAxis, YAxis, usePlotArea, useXAxisScale, useYAxisScale, type MouseHandlerDataParam, type TooltipContentProps } from 'recharts';
import { formatLocalTime, formatUtcTime } from '../time/format-time';
import { formatTick, nearestTickIndex } from './time-axis';
import { timeTicks } from './time-ticks';
import type { ChartAnnotation, ChartConfig, LevelLine, TimeChartData } from './time-chart-config';

/** The pieces the time-series and stacked charts share: axes, crosshair tooltip, annotation marks, drag-to-zoom. */

export const syncNearest = (ticks: ReadonlyArray<{ value: unknown; index: number }>, data: MouseHandlerDataParam) =>
  nearestTickIndex(ticks, data.activeLabel);

/** A drag across a chart: the times (a, b) and pixel columns (xa, xb) of where it started and where it is. */
export interface Drag {
  a: number;
  b: number;
  xa: number;
  xb: number;
}

/**
 * Drag-to-zoom: the press and each move report the time under the pointer (Recharts' active label, the nearest
 * bucket) and its column; the release hands the range to `onZoom`. Refs carry the drag between Recharts' events.
 */
export function useDragZoom(onZoom?: (fromMs: number, toMs: number) => void) {
  const [drag, setDrag] = useState<Drag | null>(null);
  const dragRef = useRef<Drag | null>(null);
  const hoveredRef = useRef<{ t: number; x: number } | null>(null);
  const at = (state: MouseHandlerDataParam) => {
    const t = Number(state?.activeLabel);
    const x = state?.activeCoordinate?.x;
    return Number.isFinite(t) && typeof x === 'number' ? { t, x } : null;
  };
  const update = (next: Drag | null) => {
    dragRef.current = next;
    setDrag(next);
  };
  if (!onZoom) return { drag: null, handlers: {} };
  return {
    drag,
    handlers: {
      onMouseDown: (state: MouseHandlerDataParam) => {
        const point = at(state) ?? hoveredRef.current;
        if (point) update({ a: point.t, b: point.t, xa: point.x, xb: point.x });
      },
      onMouseMove: (state: MouseHandlerDataParam) => {
        const point = at(state);
        if (!point) return;
        hoveredRef.current = point;
        const current = dragRef.current;
        if (current && current.b !== point.t) update({ ...current, b: point.t, xb: point.x });
      },
      onMouseUp: () => {
        const done = dragRef.current;
        update(null);
        if (done && done.a !== done.b) onZoom(Math.min(done.a, done.b), Math.max(done.a, done.b));
      },
      onMouseLeave: () => {
        hoveredRef.current = null;
        update(null);
      },
    },
  };
}

/** The span being dragged over, drawn above the plot without catching the pointer. */
export function ZoomSelection({ drag }: { drag: Drag | null }) {
  if (!drag || drag.a === drag.b) return null;
  return <div className="zoom-selection" aria-hidden="true" style={{ left: Math.min(drag.xa, drag.xb), width: Math.abs(drag.xb - drag.xa) }} />;
}

/** The annotations as marked vertical lines, placed by the chart's own x scale (lighter than a ReferenceLine each). */
export function AnnotationLayer({ annotations }: { annotations: readonly ChartAnnotation[] }) {
  const scale = useXAxisScale();
  const plot = usePlotArea();
  if (!scale || !plot || annotations.length === 0) return null;
  return (
    <g className="chart-annotations">
      {annotations.map((annotation, i) => {
        const x = scale(annotation.t);
        if (x === undefined || x < plot.x || x > plot.x + plot.width) return null;
        return (
          <g key={i} className="chart-annotation" data-annotation-kind={annotation.kind}>
            <title>{annotation.text}</title>
            <line x1={x} x2={x} y1={plot.y} y2={plot.y + plot.height} stroke={annotation.color} strokeDasharray="3 3" />
            <rect x={x - 6} y={plot.y} width={12} height={13} rx={2} fill={annotation.color} />
            <text x={x} y={plot.y + 10} textAnchor="middle" fill="var(--bg)" fontSize={9} fontWeight={700}>
              {annotation.glyph}
            </text>
          </g>
        );
      })}
    </g>
  );
}

/** Warning and critical levels as dashed horizontal lines, those inside the plot only. */
export function LevelLayer({ levels }: { levels: readonly LevelLine[] }) {
  const scale = useYAxisScale();
  const plot = usePlotArea();
  if (!scale || !plot || levels.length === 0) return null;
  return (
    <g className="chart-levels">
      {levels.map((level) => {
        const y = scale(level.value);
        if (y === undefined || y < plot.y || y > plot.y + plot.height) return null;
        return (
          <g key={`${level.tone}-${level.value}`} className="chart-level" data-level={level.tone} data-value={level.value}>
            <title>{level.text}</title>
            <line x1={plot.x} x2={plot.x + plot.width} y1={y} y2={y} stroke={`var(--${level.tone})`} strokeDasharray="6 4" strokeWidth={1} />
          </g>
        );
      })}
    </g>
  );
}

function TimeTooltip({ active, payload, label, format }: TooltipContentProps<number, string> & { format: (v: number) => string }) {
  if (!active || !payload?.length || label === undefined) return null;
  const iso = new Date(Number(label)).toISOString();
  return (
    <div className="chart-tooltip">
      <div className="chart-tooltip-time">{formatLocalTime(iso)}</div>
      <div className="muted chart-tooltip-time">{formatUtcTime(iso)}</div>
      <ul>
        {payload
          .filter((entry) => typeof entry.value === 'number')
          .map((entry) => (
            <li key={String(entry.dataKey)}>
              <span className="swatch" style={{ background: entry.color }} aria-hidden="true" /> {entry.name}: <strong>{format(entry.value as number)}</strong>
            </li>
          ))}
      </ul>
    </div>
  );
}

/** Grid, axes, tooltip, legend and annotation marks, as children of a ComposedChart. */
export function timeChartFrame({ data, config, annotations }: { data: TimeChartData; config: ChartConfig; annotations: readonly ChartAnnotation[] }) {
  const span = data.toMs - data.fromMs;
  const top = config.yMax ?? ((dataMax: number) => Math.max(dataMax, config.yMinMax ?? 0) || 1);
  return [
    <CartesianGrid key="grid" stroke="var(--line)" strokeDasharray="3 3" />,
    <XAxis
      key="x"
      dataKey="t"
      type="number"
      domain={[data.fromMs, data.toMs]}
      ticks={timeTicks(data.fromMs, data.toMs)}
      tickFormatter={(t: number) => formatTick(t, span)}
      allowDataOverflow
      tick={{ fill: 'var(--muted)', fontSize: 11 }}
    />,
    <YAxis key="y" domain={[0, top]} tickFormatter={config.format} tick={{ fill: 'var(--muted)', fontSize: 11 }} width={64} allowDataOverflow={config.yMax !== undefined} />,
    <Tooltip key="tooltip" content={(props) => <TimeTooltip {...(props as TooltipContentProps<number, string>)} format={config.format} />} isAnimationActive={false} />,
    <Legend key="legend" wrapperStyle={{ fontSize: 12 }} />,
    <AnnotationLayer key="annotations" annotations={annotations} />,
    <LevelLayer key="levels" levels={config.levels ?? []} />,
  ];
}
