'use client';

import { Area, AreaChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';

/** One overlaid distribution: its data key in the rows, the name shown, its colour. */
export interface HistogramSeries {
  key: `s${number}`;
  label: string;
  color: string;
}

/** A histogram over shared bins: rows carry each bin's bounds and one value per series. */
export interface HistogramChartConfig {
  series: HistogramSeries[];
  formatBin: (row: { lowerMs: number; upperMs: number }) => string;
  formatValue: (value: number) => string;
  yLabel: string;
  height?: number;
}

export type HistogramRow = { lowerMs: number; upperMs: number } & Partial<Record<`s${number}`, number>>;

export default function HistogramChart({ rows, config }: { rows: HistogramRow[]; config: HistogramChartConfig }) {
  return (
    <AreaChart responsive data={rows} style={{ width: '100%', height: config.height ?? 280 }} margin={{ top: 12, right: 16, bottom: 8, left: 0 }}>
      <CartesianGrid stroke="var(--line)" strokeDasharray="3 3" />
      <XAxis dataKey={(row: HistogramRow) => config.formatBin(row)} tick={{ fill: 'var(--muted)', fontSize: 11 }} interval="preserveStartEnd" minTickGap={24} />
      {/* Room for ticks like "12.0 %" on one line, and the rotated label centred beside them, not over them. */}
      <YAxis
        tickFormatter={config.formatValue}
        tick={{ fill: 'var(--muted)', fontSize: 11 }}
        width={72}
        label={{ value: config.yLabel, angle: -90, position: 'insideLeft', offset: 14, textAnchor: 'middle', fill: 'var(--muted)', fontSize: 11 }}
      />
      <Tooltip
        formatter={(value) => config.formatValue(Number(value))}
        contentStyle={{ background: 'var(--panel)', border: '1px solid var(--line)', color: 'var(--text)' }}
      />
      <Legend />
      {config.series.map((series) => (
        <Area
          key={series.key}
          dataKey={series.key}
          name={series.label}
          type="step"
          stroke={series.color}
          fill={series.color}
          fillOpacity={0.15}
          strokeWidth={1.5}
          isAnimationActive={false}
        />
      ))}
    </AreaChart>
  );
}
