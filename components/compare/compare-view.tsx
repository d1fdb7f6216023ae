'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useQueryStates } from 'nuqs';
import { useState } from 'react';
import { COMPARE_METRICS, COMPARE_RANKS, isLatencyCompareMetric, type CompareMetric } from '@/lib/protocol/read-api/compare-metrics';
import { ChartPanel } from '../charts/chart-panel';
import { CHART_MAX_POINTS, type ChartConfig } from '../charts/time-chart-config';
import { useCompareQuery } from '../hooks/use-compare-query';
import { useDebouncedCommit } from '../hooks/use-debounced-commit';
import { useNow } from '../hooks/use-now';
import { useCompareChoicesQuery } from '../hooks/use-compare-choices-query';
import { RangeControls } from '../host/range-controls';
import { serializeHostUrl } from '../host/search-params';
import { frozenRange, toTimeRange, zoomSelection } from '../host/time-range';
import { EmptyState } from '../states';
import { COMPARE_METRIC_LABEL, KEYED_METRICS, compareCaption, compareChartData, formatterFor, toCompareRequest } from './compare-mappers';
import { COMPARE_LIMITS, COMPARE_SCOPES, compareSearchParams, serializeCompareUrl, type CompareScopeKind } from './search-params';

const SCOPE_LABEL: Record<CompareScopeKind, string> = { region: 'A region', labels: 'A label set', hosts: 'Picked hosts', fleet: 'Whole fleet' };

function useCompareView() {
  const [state, setState] = useQueryStates(compareSearchParams, { history: 'replace', clearOnDefault: true });
  return { state, setState, range: toTimeRange(state) };
}

function HostPicker({ picked, names, onChange }: { picked: number[]; names: Map<number, string>; onChange: (ids: number[]) => void }) {
  const [q, setQ] = useState('');
  const search = useCompareChoicesQuery(q);
  const found = search.data?.hosts ?? [];
  for (const host of found) names.set(host.id, host.hostname);
  return (
    <div className="host-picker">
      <label className="field">
        Find hosts
        <input type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="hostname, region or label" />
      </label>
      <fieldset className="field plain-fieldset">
        <legend>{found.length ? 'Click to add or remove' : 'No hosts match'}</legend>
        <span className="chips">
          {found.map((host) => (
            <button
              key={host.id}
              type="button"
              className="chip"
              aria-pressed={picked.includes(host.id)}
              onClick={() => onChange(picked.includes(host.id) ? picked.filter((id) => id !== host.id) : [...picked, host.id])}
            >
              <span className="agent-text">{host.hostname}</span> <span className="muted">{host.region}</span>
            </button>
          ))}
        </span>
      </fieldset>
      {picked.length > 0 && (
        <p className="chips" aria-label="Picked hosts">
          {picked.map((id) => (
            <button key={id} type="button" className="chip" aria-pressed onClick={() => onChange(picked.filter((p) => p !== id))} aria-label={`Remove ${names.get(id) ?? `host ${id}`}`}>
              <span className="agent-text">{names.get(id) ?? `host #${id}`}</span> ✕
            </button>
          ))}
        </p>
      )}
    </div>
  );
}

/** One metric of many hosts on one chart: a region's, a label set's, picked ones or the fleet's, capped to the top N. */
export function CompareView() {
  const { state, setState, range } = useCompareView();
  const nowMs = useNow(10_000);
  const pathname = usePathname();
  const choices = useCompareChoicesQuery('');
  const [names] = useState(() => new Map<number, string>());
  const [labels, setLabels] = useDebouncedCommit(state.labels ?? '', (value) => void setState({ labels: value || null }), 500);
  const [key, setKey] = useDebouncedCommit(state.key ?? '', (value) => void setState({ key: value || null }), 500);
  const regions = choices.data?.regions ?? [];
  const latencyNames = choices.data?.latencyNames ?? [];
  const planned = toCompareRequest(state, { region: regions[0] ?? null, latency: latencyNames[0] ?? null });
  const request = 'request' in planned ? planned.request : null;
  const compare = useCompareQuery(request, range, state.live, CHART_MAX_POINTS);
  const data = compare.data;
  for (const host of data?.hosts ?? []) names.set(host.hostId, host.hostname);
  const latency = isLatencyCompareMetric(state.metric);
  const config = {
    kind: 'time-series',
    label: `${COMPARE_METRIC_LABEL[state.metric]} per host`,
    format: formatterFor(data?.unit ?? (latency ? 'ms' : '')),
    yMinMax: data?.unit === '%' ? 5 : undefined,
    height: 360,
  } satisfies ChartConfig;
  const hostHref = (hostId: number) => {
    const pinned = frozenRange(range, nowMs);
    return serializeHostUrl(`/hosts/${hostId}`, { ...pinned, range: state.range });
  };

  if (choices.isSuccess && choices.data.regions.length === 0) {
    return (
      <EmptyState title="No hosts yet">
        <p className="muted">Enrol a host (see the fleet page) to compare hosts here.</p>
      </EmptyState>
    );
  }

  return (
    <>
      <section aria-label="What to compare" className="panel">
        <div className="filters" style={{ marginTop: 0 }}>
          <label className="field">
            Metric
            <select value={state.metric} onChange={(e) => void setState({ metric: e.target.value as CompareMetric })}>
              {COMPARE_METRICS.map((metric) => (
                <option key={metric} value={metric}>
                  {COMPARE_METRIC_LABEL[metric]}
                </option>
              ))}
            </select>
          </label>
          {latency && (
            <label className="field">
              Latency series
              <select value={state.latency ?? latencyNames[0] ?? ''} onChange={(e) => void setState({ latency: e.target.value })}>
                {[...new Set([...(state.latency ? [state.latency] : []), ...latencyNames])].map((name) => (
                  <option key={name} value={name}>
                    {name}
                  </option>
                ))}
              </select>
            </label>
          )}
          <label className="field">
            Rank by
            <select value={state.rank} onChange={(e) => void setState({ rank: e.target.value as (typeof COMPARE_RANKS)[number] })}>
              <option value="avg">{latency ? 'mean of its per-minute values' : 'average over the range'}</option>
              <option value="max">{latency ? 'its worst minute' : 'peak in the range'}</option>
            </select>
          </label>
          {!latency && KEYED_METRICS.includes(state.metric) && (
            <label className="field">
              Only this device, process, cgroup or probe
              <input type="text" value={key} onChange={(e) => setKey(e.target.value)} placeholder="all, combined per host" />
            </label>
          )}
          <label className="field">
            Show at most
            <select value={request?.limit ?? String(state.limit)} onChange={(e) => void setState({ limit: Number(e.target.value) })}>
              {[...new Set([...COMPARE_LIMITS.map(String), request?.limit ?? String(state.limit)])].sort((a, b) => Number(a) - Number(b)).map((n) => (
                <option key={n} value={n}>
                  {n} hosts
                </option>
              ))}
            </select>
          </label>
        </div>
        <fieldset className="field plain-fieldset">
          <legend>Hosts</legend>
          <span className="chips">
            {COMPARE_SCOPES.map((scope) => (
              <button key={scope} type="button" className="chip" aria-pressed={state.by === scope} onClick={() => void setState({ by: scope })}>
                {SCOPE_LABEL[scope]}
              </button>
            ))}
          </span>
        </fieldset>
        <div className="filters">
          {state.by === 'region' && (
            <fieldset className="field plain-fieldset">
              <legend>Region</legend>
              <span className="chips">
                {regions.map((region) => (
                  <button key={region} type="button" className="chip" aria-pressed={(state.region ?? regions[0]) === region} onClick={() => void setState({ region })}>
                    {region}
                  </button>
                ))}
              </span>
            </fieldset>
          )}
          {state.by === 'labels' && (
            <label className="field">
              Labels (key:value, comma-separated)
              <input type="text" value={labels} onChange={(e) => setLabels(e.target.value)} placeholder="model:llama" />
            </label>
          )}
          {state.by === 'hosts' && <HostPicker picked={state.hosts} names={names} onChange={(ids) => void setState({ hosts: ids })} />}
        </div>
      </section>
      <RangeControls
        range={range}
        live={state.live}
        onPreset={(preset) => void setState({ range: preset, from: null, to: null }, { history: 'push' })}
        onAbsolute={(fromMs, toMs) => void setState({ from: new Date(fromMs), to: new Date(toMs) }, { history: 'push' })}
        onLive={(live) => void setState({ live })}
        shareUrl={(pinned) => `${window.location.origin}${serializeCompareUrl(pathname, { ...state, ...pinned, live: true })}`}
      />
      {'missing' in planned ? (
        <EmptyState title="Nothing to compare yet">
          <p className="muted">{planned.missing}</p>
        </EmptyState>
      ) : (
        <>
          <ChartPanel
            testId="compare-chart"
            title={
              <>
                {COMPARE_METRIC_LABEL[state.metric]}
                {latency && request?.latency && (
                  <>
                    {' '}
                    of <span className="series-name">{request.latency}</span>
                  </>
                )}{' '}
                per host
              </>
            }
            description={data ? compareCaption(data) : undefined}
            config={config}
            data={data ? compareChartData(data) : null}
            loading={compare.isPending}
            fetching={compare.isFetching}
            error={compare.error}
            onRetry={() => void compare.refetch()}
            empty="None of these hosts reported this metric in this range. Widen the range or pick another metric."
            annotations={[]}
            onZoom={(fromMs, toMs) => {
              const selection = zoomSelection(fromMs, toMs);
              if (selection) void setState({ from: new Date(selection.fromMs), to: new Date(selection.toMs) }, { history: 'push' });
            }}
          />
          {data && data.hosts.length > 0 && (
            <div className="table-wrap">
              <table className="data" aria-label="Hosts compared">
                <thead>
                  <tr>
                    <th scope="col">#</th>
                    <th scope="col">Host</th>
                    <th scope="col">Region</th>
                    <th scope="col" className="num">
                      {state.rank === 'max' ? (latency ? 'Worst minute' : 'Peak') : latency ? 'Mean per minute' : 'Average'}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.hosts.map((host, i) => (
                    <tr key={host.hostId} data-host={host.hostname}>
                      <td>{i + 1}</td>
                      <td>
                        <span className="swatch" style={{ background: `var(--series-${(i % 6) + 1})` }} aria-hidden="true" />{' '}
                        <Link className="host-link agent-text" href={hostHref(host.hostId)}>
                          {host.hostname}
                        </Link>
                      </td>
                      <td>{host.region}</td>
                      <td className="num">{host.value === null ? '—' : config.format(host.value)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </>
  );
}
