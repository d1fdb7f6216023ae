'use client';

import dynamic from 'next/dynamic';
import { formatMs } from '../format';
import type { HistogramChartConfig } from '../charts/histogram-chart';
import { overlayHistograms, percentileRows } from './region-mappers';
import { SERIES_COLORS, useRegionsView } from './use-regions-view';

// Recharts loads only on this page, after the tables.
const HistogramChart = dynamic(() => import('../charts/histogram-chart'), { ssr: false, loading: () => <div className="chart-box" /> });

function Delta({ ms, pct }: { ms: number | null; pct: number | null }) {
  if (ms === null) return null;
  const sign = ms > 0 ? '+' : '';
  return (
    <span className={ms > 0 ? 'delta-worse' : ms < 0 ? 'delta-better' : 'muted'}>
      {' '}
      ({sign}
      {formatMs(ms).replace(/^-/, '−')}
      {pct !== null && `, ${sign}${pct.toFixed(0)} %`})
    </span>
  );
}

export function RegionLatency() {
  const { setState, regions, series, picked } = useRegionsView();
  if (picked.length < 2 || regions.length === 0) return null;
  const names = [...new Set(regions.flatMap((r) => Object.keys(r.latency)))].sort();
  if (!series) {
    return (
      <section aria-label="Latency">
        <h2>Latency</h2>
        <p className="muted">
          No request timings from these regions in this range. Point the inference server&apos;s StatsD client at the agent
          (127.0.0.1:8125) to see latency here.
        </p>
      </section>
    );
  }
  const rows = overlayHistograms(regions.map((r) => r.latencyHistograms[series]));
  const config: HistogramChartConfig = {
    series: regions.map((r, i) => ({ key: `s${i}`, label: r.region, color: SERIES_COLORS[i % SERIES_COLORS.length]! })),
    formatBin: (bin) => formatMs(bin.upperMs),
    formatValue: (value) => `${value.toFixed(1)} %`,
    yLabel: 'share of requests',
  };
  const table = percentileRows(regions, series);
  return (
    <section aria-label="Latency">
      <div className="page-head">
        <h2>Latency distribution</h2>
        <label className="field">
          Latency series
          <select value={series} onChange={(event) => setState({ latency: event.target.value })}>
            {names.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="panel">
        <div className="chart-box" role="img" aria-label={`Latency distribution of ${series} per region, as a share of each region's requests`}>
          <HistogramChart rows={rows} config={config} />
        </div>
        <p className="muted">
          Each region&apos;s merged histogram over the range, as a share of its own requests, so regions with different traffic
          compare. Percentiles below come from the same merged counts, never from averaged percentiles.
        </p>
      </div>
      <div className="table-wrap">
        <table className="data" aria-label="Latency percentiles">
          <thead>
            <tr>
              <th scope="col">Percentile</th>
              {regions.map((r, i) => (
                <th key={r.region} scope="col" className="num">
                  {r.region}
                  {i > 0 && <span className="muted"> (vs {regions[0]!.region})</span>}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.map((row) => (
              <tr key={row.label} data-quantile={row.label}>
                <th scope="row">{row.label}</th>
                {row.cells.map((cell, i) => (
                  <td key={regions[i]!.region} className="num" data-region={regions[i]!.region}>
                    <span data-metric="value">{formatMs(cell.valueMs)}</span>
                    <Delta ms={cell.deltaMs} pct={cell.deltaPct} />
                  </td>
                ))}
              </tr>
            ))}
            <tr>
              <th scope="row">requests</th>
              {regions.map((r) => (
                <td key={r.region} className="num">
                  {new Intl.NumberFormat('en').format(r.latency[series]?.count ?? 0)}
                </td>
              ))}
            </tr>
          </tbody>
        </table>
      </div>
    </section>
  );
}
