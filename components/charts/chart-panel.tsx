'use client';

import { Suspense, lazy, useEffect, useId, type ReactNode } from 'react';
import { ErrorState } from '../states';
import type { ChartConfig, TimeChartData, TimeChartInteraction } from './time-chart-config';

// Recharts loads only where a page draws a time chart: fetched as soon as a panel mounts, while its data loads.
// React.lazy rather than next/dynamic: a chart renders only with data, which only the browser fetches.
const loadTimeCharts = () => import('./time-charts');
const TimeSeriesChart = lazy(() => loadTimeCharts().then((m) => ({ default: m.TimeSeriesChart })));
const StackedAreaChart = lazy(() => loadTimeCharts().then((m) => ({ default: m.StackedAreaChart })));

export interface ChartPanelProps extends TimeChartInteraction {
  title: ReactNode;
  description?: ReactNode;
  config: ChartConfig;
  /** Null until the first answer; then the previous answer stays while the next loads. */
  data: (TimeChartData & { hasData: boolean }) | null;
  loading: boolean;
  fetching: boolean;
  error: Error | null;
  onRetry?: () => void;
  /** What to do when there is nothing to draw. */
  empty: ReactNode;
  /** A note under the chart (e.g. series left out). */
  note?: ReactNode;
  testId?: string;
}

/** One chart with its title, a fixed-height plot (no jump while loading or refreshing), and its empty and error states. */
export function ChartPanel({ title, description, config, data, loading, fetching, error, onRetry, empty, note, testId, ...interaction }: ChartPanelProps) {
  const titleId = useId();
  useEffect(() => void loadTimeCharts(), []);
  const height = config.height ?? 240;
  let body: ReactNode;
  if (error && !data) body = <ErrorState what="this chart" error={error} onRetry={onRetry} />;
  else if (!data || loading) body = <div className="chart-placeholder" style={{ height }} role="status" aria-label="Loading chart" />;
  else if (!data.hasData) body = <div className="chart-empty" style={{ height }}><p className="muted">{empty}</p></div>;
  else {
    const props = { data, annotations: interaction.annotations, syncId: interaction.syncId, onZoom: interaction.onZoom };
    body = (
      <Suspense fallback={<div className="chart-placeholder" style={{ height }} aria-hidden="true" />}>
        {config.kind === 'stacked' ? <StackedAreaChart {...props} config={config} /> : <TimeSeriesChart {...props} config={config} />}
      </Suspense>
    );
  }
  return (
    <figure className="panel chart-panel" aria-labelledby={titleId} data-testid={testId} data-has-data={data?.hasData ? 'true' : 'false'}>
      <div className="chart-head">
        <h3 id={titleId}>{title}</h3>
        <span className="updating" aria-live="polite">
          {fetching && data ? 'updating…' : error && data ? 'update failed, showing the last answer' : ''}
        </span>
      </div>
      {description && <p className="muted chart-description">{description}</p>}
      <div className="chart-body" style={{ minHeight: height }}>
        {body}
      </div>
      {note && <figcaption className="muted chart-note">{note}</figcaption>}
    </figure>
  );
}
