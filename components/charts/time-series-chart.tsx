'use client';

import { Area, ComposedChart } from 'recharts';
import { isolatedRows } from './isolated-points';
import type { TimeChartData, TimeChartInteraction, TimeSeriesChartConfig } from './time-chart-config';
import { ZoomSelection, syncNearest, timeChartFrame, useDragZoom } from './time-chart-parts';

/**
 * Lines over time on the page's shared crosshair, with annotation marks; drag across it to zoom. Each line is an
 * unfilled Area: the stacked chart loads Area anyway, and Recharts' Line would add its own module to the page.
 * A value with gaps on both sides is drawn as a dot, since a line through one point draws nothing.
 */
export default function TimeSeriesChart({ data, config, annotations, syncId, onZoom }: { data: TimeChartData; config: TimeSeriesChartConfig } & TimeChartInteraction) {
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
        {data.series.map((s) => {
          const isolated = isolatedRows(data.rows, s.key);
          return (
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
              dot={
                isolated.size === 0
                  ? false
                  : ({ index, cx, cy }) =>
                      isolated.has(index) && cx != null && cy != null ? <circle key={index} className="isolated-point" cx={cx} cy={cy} r={2.5} fill={s.color} /> : null
              }
              activeDot={{ r: 3 }}
              connectNulls={false}
              isAnimationActive={false}
            />
          );
        })}
      </ComposedChart>
      <ZoomSelection drag={zoom.drag} />
    </div>
  );
}
