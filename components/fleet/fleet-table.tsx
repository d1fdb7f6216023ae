'use client';

import clsx from 'clsx';
import Link from 'next/link';
import { FLEET_PAGE_SIZES, SPARKLINE_WINDOW_MS, type FleetHost, type FleetSort } from '@/lib/protocol/read-api/fleet';
import { Sparkline, type SparklineConfig } from '../charts/sparkline';
import { formatCount, formatMs, formatPct, formatQueue, levelSeverity } from '../format';
import { useFleetQuery } from '../hooks/use-fleet-query';
import { useFleetSparklinesQuery } from '../hooks/use-fleet-sparklines-query';
import { EmptyState, ErrorState, LoadingState } from '../states';
import { RelativeTime } from '../time/relative-time';
import { ariaSort, nextSort } from './fleet-query';
import { NoHostsYet } from './no-hosts-yet';
import { STATUS_LABEL } from './status-label';
import { useFleetUrlState } from './use-fleet-url-state';
import { worstSeverityOf } from './worst-severity';

const STEAL_SPARK: SparklineConfig = { label: 'Steal', minMax: 5, format: (v) => formatPct(v) };
const P99_SPARK: SparklineConfig = { label: 'p99', minMax: 1, format: (v) => formatMs(v) };

const COLUMNS: { sort: FleetSort | null; label: string; numeric?: boolean }[] = [
  { sort: 'hostname', label: 'Host' },
  { sort: 'region', label: 'Region' },
  { sort: null, label: 'Labels' },
  { sort: 'status', label: 'Status' },
  { sort: 'steal', label: 'Steal', numeric: true },
  { sort: 'iowait', label: 'iowait', numeric: true },
  { sort: 'diskQueue', label: 'Disk queue', numeric: true },
  { sort: 'p99', label: 'p99, worst minute', numeric: true },
  { sort: 'attention', label: 'Top finding' },
  { sort: 'lastSeen', label: 'Last seen' },
  { sort: null, label: 'Agent' },
];

const MAX_LABELS_SHOWN = 3;

function Labels({ labels }: { labels: Record<string, string> }) {
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return <span className="muted">—</span>;
  const all = entries.map(([key, value]) => `${key}=${value}`);
  return (
    <span className="labels" title={all.join('\n')}>
      {all.slice(0, MAX_LABELS_SHOWN).map((text) => (
        <span key={text} className="label">
          {text}
        </span>
      ))}
      {all.length > MAX_LABELS_SHOWN && <span className="label">+{all.length - MAX_LABELS_SHOWN}</span>}
    </span>
  );
}

function HostRow({ host, now, steal, p99, window }: {
  host: FleetHost;
  now: Date;
  steal: { t: number; v: number | null }[] | undefined;
  p99: { t: number; v: number | null }[] | undefined;
  window: { fromMs: number; toMs: number };
}) {
  const worst = worstSeverityOf(host.findings);
  return (
    <tr data-host={host.hostname} data-host-id={host.id} className={clsx(worst === 'critical' && 'row-critical', worst === 'warning' && 'row-warning')}>
      <th scope="row">
        <Link className="host-link" href={`/hosts/${host.id}`}>
          {host.hostname}
        </Link>
      </th>
      <td>{host.region}</td>
      <td>
        <Labels labels={host.labels} />
      </td>
      <td>
        <span className={`badge badge-${host.status}`}>{STATUS_LABEL[host.status]}</span>
      </td>
      <td className={`num sev-${levelSeverity(host.latest?.stealPct, host.levels.stealPct)}`}>
        <span data-metric="steal">{formatPct(host.latest?.stealPct)}</span>
        {steal && <Sparkline points={steal} config={STEAL_SPARK} {...window} />}
      </td>
      <td className={`num sev-${levelSeverity(host.latest?.iowaitPct, host.levels.iowaitPct)}`}>
        <span data-metric="iowait">{formatPct(host.latest?.iowaitPct)}</span>
      </td>
      <td className={`num sev-${levelSeverity(host.diskQueueDepth, host.levels.diskQueueDepth)}`}>
        <span data-metric="disk-queue">{formatQueue(host.diskQueueDepth)}</span>
      </td>
      <td className="num">
        <span data-metric="p99">{formatMs(host.p99Ms)}</span>
        {p99 && <Sparkline points={p99} config={P99_SPARK} {...window} />}
      </td>
      <td className="finding-cell">
        {host.topFinding ? (
          <span title={host.topFinding.message}>
            <span className={`badge badge-${host.topFinding.severity}`}>{host.topFinding.severity}</span>{' '}
            <span className="finding-title">{host.topFinding.title}</span>
            {host.findings.critical + host.findings.warning + host.findings.info > 1 && (
              <span className="muted"> +{host.findings.critical + host.findings.warning + host.findings.info - 1} more</span>
            )}
          </span>
        ) : (
          <span className="muted">none</span>
        )}
      </td>
      <td>
        <RelativeTime iso={host.latest?.ts ?? host.lastSeenAt} now={now} />
      </td>
      <td data-metric="agent-version">{host.agentVersion ?? <span className="muted">—</span>}</td>
    </tr>
  );
}

export function FleetTable() {
  const { state, setState, query } = useFleetUrlState();
  const fleet = useFleetQuery(query);
  const ids = fleet.data?.hosts.map((host) => host.id) ?? [];
  const steal = useFleetSparklinesQuery({ ids, metric: 'steal' });
  const p99 = useFleetSparklinesQuery({ ids, metric: 'p99', latency: query.latency });

  if (fleet.isPending) return <LoadingState label="Loading hosts…" />;
  if (fleet.error && !fleet.data) return <ErrorState what="the fleet" error={fleet.error} onRetry={() => void fleet.refetch()} />;
  const data = fleet.data!;
  if (data.tiles.hosts === 0) return <NoHostsYet />;

  const now = new Date(data.generatedAt);
  const info = data.pageInfo;
  const toMs = now.getTime();
  const window = { fromMs: toMs - SPARKLINE_WINDOW_MS, toMs };
  const first = (info.page - 1) * info.limit + 1;
  const last = Math.min(info.total, info.page * info.limit);
  return (
    <section aria-label="Hosts">
      <div className="pager">
        <span aria-live="polite">
          {info.total === 0 ? 'No hosts match' : `Hosts ${formatCount(first)}–${formatCount(last)} of ${formatCount(info.total)}`}
          {info.total !== data.tiles.hosts && ` (filtered from ${formatCount(data.tiles.hosts)})`}
        </span>
        <span className="updating" aria-hidden={!fleet.isPlaceholderData}>
          {fleet.isPlaceholderData ? 'updating…' : fleet.error ? 'refresh failed, retrying' : ''}
        </span>
      </div>
      {info.total === 0 ? (
        <EmptyState title="No hosts match these filters.">
          <button
            type="button"
            className="button"
            onClick={() => setState({ q: null, region: null, status: null, finding: null, label: null, page: null })}
          >
            Clear filters
          </button>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="data" aria-label="Hosts" aria-rowcount={info.total}>
            <thead>
              <tr>
                {COLUMNS.map((column) => (
                  <th
                    key={column.label}
                    scope="col"
                    className={clsx(column.numeric && 'num')}
                    aria-sort={column.sort ? ariaSort(info, column.sort) : undefined}
                  >
                    {column.sort ? (
                      <button
                        type="button"
                        className="sort-button"
                        onClick={() => setState({ ...nextSort(info, column.sort!), page: null })}
                      >
                        {column.label}
                        {info.sort === column.sort ? (info.dir === 'asc' ? ' ▲' : ' ▼') : ''}
                      </button>
                    ) : (
                      column.label
                    )}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.hosts.map((host) => (
                <HostRow
                  key={host.id}
                  host={host}
                  now={now}
                  window={window}
                  steal={steal.data ? (steal.data.hosts[String(host.id)] ?? []) : undefined}
                  p99={p99.data ? (p99.data.hosts[String(host.id)] ?? []) : undefined}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="pager" aria-label="Pages">
        <span>
          <button type="button" className="button" disabled={info.page <= 1} onClick={() => setState({ page: info.page - 1 })}>
            ← Previous
          </button>{' '}
          <span>
            Page {info.page} of {info.pages}
          </span>{' '}
          <button type="button" className="button" disabled={info.page >= info.pages} onClick={() => setState({ page: info.page + 1 })}>
            Next →
          </button>
        </span>
        <label>
          Rows per page{' '}
          <select value={state.limit} onChange={(event) => setState({ limit: Number(event.target.value) as typeof state.limit, page: null })}>
            {FLEET_PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </label>
      </nav>
    </section>
  );
}
