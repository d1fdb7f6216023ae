'use client';

import { Area, ComposedChart } from 'recharts';
import type { StackedChartConfig, TimeChartData, TimeChartInteraction } from './time-chart-config';
import { ZoomSelection, syncNearest, timeChartFrame, useDragZoom } from './time-chart-parts';

/** Parts of a whole stacked over time (CPU time by kind); series marked `line` are drawn over the stack. */
export default function StackedAreaChart({ data, config, annotations, syncId, onZoom }: { data: TimeChartData; config: StackedChartConfig } & TimeChartInteraction) {
  const zoom = useDragZoom(onZoom);
  return (
    <div className="time-chart">
      <ComposedChart
        responsive
        data={data.rows}
        style={{ width: '100%', height: config.height ?? 240, userSelect: 'none' }}
        margin={{ top: 14, right: 16, bottom: 4, left: 0 }}
        syncId={syncId}
        syncMethod={syncNearest}
        {...zoom.handlers}
      >
        {timeChartFrame({ data, config, annotations })}
        {data.series.map((s) =>
          s.line ? (
            <Area
              key={s.key}
              dataKey={s.key}
              name={s.label}
              type="linear"
              stroke={s.color}
              strokeDasharray={s.dash}
              strokeWidth={1.5}
              fill="none"
              legendType="line"
              isAnimationActive={false}
            />
          ) : (
            <Area
              key={s.key}
              dataKey={s.key}
              name={s.label}
              stackId="stack"
              type="linear"
              stroke={s.color}
              fill={s.color}
              fillOpacity={0.35}
              strokeWidth={1}
              isAnimationActive={false}
            />
          ),
        )}
      </ComposedChart>
      <ZoomSelection drag={zoom.drag} />
    </div>
  );
}
