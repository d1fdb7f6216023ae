'use client';

import type { HostColourLevels } from '@/lib/protocol/read-api/fleet';
import { ChartPanel } from '../charts/chart-panel';
import { CHART_MAX_POINTS, type ChartAnnotation, type ChartConfig } from '../charts/time-chart-config';
import { useHostAnnotationsQuery } from '../hooks/use-host-annotations-query';
import { useHostLatencyQuery } from '../hooks/use-host-latency-query';
import { useHostLatencySeriesQuery } from '../hooks/use-host-latency-series-query';
import { useHostSeriesQueries } from '../hooks/use-host-series-query';
import { useHostQuery } from '../hooks/use-host-query';
import { AnnotationList } from './annotation-list';
import { levelLines } from './chart-levels';
import { REPORTS_METRIC, chartEmptiness, type ChartEmptiness } from './chart-empty';
import { NoReportsInRange } from './no-reports';
import { chartAnnotations, latencyChartData, latencyResolutionNote, seriesChartData, withOverlay } from './chart-data';
import { DEFAULT_LATENCY_CHARTS, HOST_CHARTS, LATENCY_CHART, type HostChartDef } from './host-charts';
import { WEEK_MS, zoomSelection, type TimeRange } from './time-range';
import { useHostView } from './use-host-view';

const SYNC_ID = 'host-charts';

interface PanelContext {
  hostId: number;
  /** Why a chart without data has none: this decides between "no data in this range" and the chart's own reason. */
  emptiness: ChartEmptiness;
  /** Where this host's values turn warning and critical, from the findings rules (with overrides). */
  levels: HostColourLevels | undefined;
  range: TimeRange;
  live: boolean;
  lastWeek: boolean;
  annotations: ChartAnnotation[];
  onZoom: (fromMs: number, toMs: number) => void;
}

function emptyState(emptiness: ChartEmptiness, notInReports: string) {
  return emptiness.kind === 'no-reports' ? <NoReportsInRange lastReportAt={emptiness.lastReportAt} /> : notInReports;
}

function HostChartPanel({ def, ctx }: { def: HostChartDef; ctx: PanelContext }) {
  const queries = def.metrics.map((m) => ({ hostId: ctx.hostId, metric: m.metric, range: ctx.range, maxPoints: CHART_MAX_POINTS }));
  const current = useHostSeriesQueries(queries, ctx.live);
  const earlier = useHostSeriesQueries(ctx.lastWeek ? queries.map((q) => ({ ...q, shiftMs: WEEK_MS })) : [], ctx.live);
  let data = seriesChartData(def.metrics.map((m, i) => ({ label: m.label, response: current[i]?.data })), def.shape);
  if (data && ctx.lastWeek) {
    const inputs = def.metrics.map((m, i) => ({ label: m.label, response: earlier[i]?.data }));
    data = withOverlay(data, inputs, WEEK_MS, def.kind === 'stacked' ? 'total' : 'each', def.shape);
  }
  const levels = def.levels ? levelLines(ctx.levels?.[def.levels.of], def.levels, def.format) : [];
  const config = { kind: def.kind, label: def.title, format: def.format, yMax: def.yMax, yMinMax: def.yMinMax, levels } satisfies ChartConfig;
  const failed = current.find((q) => q.error);
  const nothingEarlier = ctx.lastWeek && earlier.length > 0 && earlier.every((q) => q.data && q.data.series.length === 0);
  const notes = [
    data && data.hiddenSeries > 0 ? `${data.hiddenSeries} more series with lower peaks are not drawn.` : null,
    nothingEarlier ? 'Nothing recorded in the same range a week earlier.' : null,
  ].filter((n) => n !== null);
  return (
    <ChartPanel
      testId={`chart-${def.id}`}
      title={def.title}
      description={def.description}
      config={config}
      data={data}
      loading={current.some((q) => q.isPending) || (data?.hasData === false && ctx.emptiness.kind === 'checking')}
      fetching={current.some((q) => q.isFetching)}
      error={failed?.error ?? null}
      onRetry={() => current.forEach((q) => void q.refetch())}
      empty={emptyState(ctx.emptiness, def.empty)}
      note={notes.length ? notes.join(' ') : undefined}
      annotations={ctx.annotations}
      syncId={SYNC_ID}
      onZoom={ctx.onZoom}
    />
  );
}

function LatencyChartPanel({ name, ctx }: { name: string; ctx: PanelContext }) {
  const query = { hostId: ctx.hostId, name, range: ctx.range, points: CHART_MAX_POINTS };
  const current = useHostLatencyQuery(query, ctx.live);
  const earlier = useHostLatencyQuery({ ...query, shiftMs: WEEK_MS }, ctx.live, ctx.lastWeek);
  const data = latencyChartData(current.data, ctx.lastWeek ? { response: earlier.data, shiftMs: WEEK_MS } : undefined);
  const nothingEarlier = ctx.lastWeek && earlier.data !== undefined && !earlier.data.series?.buckets.some((b) => b.count > 0);
  const config = { kind: 'time-series', label: `Latency of ${name}`, format: LATENCY_CHART.format, yMinMax: LATENCY_CHART.yMinMax } satisfies ChartConfig;
  return (
    <ChartPanel
      testId="chart-latency"
      title={
        <>
          Latency: <span className="series-name">{name}</span>
        </>
      }
      description={LATENCY_CHART.description}
      config={config}
      data={data}
      loading={current.isPending || (data?.hasData === false && ctx.emptiness.kind === 'checking')}
      fetching={current.isFetching}
      error={current.error}
      onRetry={() => void current.refetch()}
      empty={emptyState(ctx.emptiness, LATENCY_CHART.empty)}
      note={[latencyResolutionNote(current.data?.total), nothingEarlier ? 'No requests in the same range a week earlier.' : null].filter((n) => n !== null).join(' ') || undefined}
      annotations={ctx.annotations}
      syncId={SYNC_ID}
      onZoom={ctx.onZoom}
    />
  );
}

/** Every chart of the host on one crosshair, each marked with the range's events; drag on any to zoom all. */
export function HostChartsSection({ hostId }: { hostId: number }) {
  const { state, setState, range, live, lastWeek, setAbsolute } = useHostView();
  const annotations = useHostAnnotationsQuery(hostId, range, live);
  const latencySeries = useHostLatencySeriesQuery(hostId, range, live);
  const [reports] = useHostSeriesQueries([{ hostId, metric: REPORTS_METRIC, range, maxPoints: CHART_MAX_POINTS }], live);
  const host = useHostQuery(hostId);
  const emptiness = chartEmptiness({ data: reports?.data, isPlaceholderData: reports?.isPlaceholderData ?? false }, host.data?.lastReportAt ?? null);
  const available = latencySeries.data?.series.map((s) => s.name) ?? [];
  const chosen = state.latency.length ? state.latency : available.slice(0, DEFAULT_LATENCY_CHARTS);
  const ctx: PanelContext = {
    hostId,
    emptiness,
    levels: host.data?.levels,
    range,
    live,
    lastWeek,
    annotations: chartAnnotations(annotations.data?.annotations ?? []),
    onZoom: (fromMs, toMs) => {
      const selection = zoomSelection(fromMs, toMs);
      if (selection) setAbsolute(selection.fromMs, selection.toMs);
    },
  };
  const toggleLatency = (name: string) => {
    const next = chosen.includes(name) ? chosen.filter((n) => n !== name) : [...chosen, name];
    void setState({ latency: next });
  };
  return (
    <section aria-labelledby="charts-heading">
      <h2 id="charts-heading">Charts</h2>
      <AnnotationList query={annotations} />
      {available.length > 0 && (
        <fieldset className="field plain-fieldset latency-picker">
          <legend>Latency series</legend>
          <span className="chips">
            {latencySeries.data!.series.map((s) => (
              <button key={s.name} type="button" className="chip" aria-pressed={chosen.includes(s.name)} onClick={() => toggleLatency(s.name)}>
                <span className="series-name">{s.name}</span> <span className="muted">{new Intl.NumberFormat('en').format(s.count)} req</span>
              </button>
            ))}
          </span>
        </fieldset>
      )}
      <div className="chart-grid">
        {chosen.map((name) => (
          <LatencyChartPanel key={name} name={name} ctx={ctx} />
        ))}
        {HOST_CHARTS.map((def) => (
          <HostChartPanel key={def.id} def={def} ctx={ctx} />
        ))}
      </div>
      {latencySeries.isSuccess && available.length === 0 && emptiness.kind === 'not-in-reports' && (
        <p className="muted">
          No request latency from this host in this range. Send timings to the agent (StatsD on 127.0.0.1:8125 or HTTP on
          127.0.0.1:8126), or let it read your model server’s /metrics (--scrape NAME=URL), to chart p50, p95 and p99 here.
        </p>
      )}
    </section>
  );
}
