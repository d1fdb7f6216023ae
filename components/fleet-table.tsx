'use client';

import { formatAge, formatPct, iowaitSeverity, stealSeverity } from './format';
import { useFleetQuery } from './hooks/use-fleet-query';

const STATUS_LABEL = { ok: 'reporting', stale: 'stale', never_reported: 'no data yet' } as const;

export function FleetTable() {
  const { data, error, isPending } = useFleetQuery();

  if (isPending) return <p className="muted">Loading hosts…</p>;
  if (error) return <p className="error" role="alert">Could not load the fleet: {error.message}</p>;
  if (data.hosts.length === 0) {
    return (
      <p className="muted">
        No hosts yet. Start an agent with <code>npm run agent -- --server URL --enroll-key KEY</code>.
      </p>
    );
  }

  const now = new Date(data.generatedAt);
  return (
    <table className="data" aria-label="Hosts">
      <thead>
        <tr>
          <th scope="col">Host</th>
          <th scope="col">Region</th>
          <th scope="col">Status</th>
          <th scope="col" className="num">Steal</th>
          <th scope="col" className="num">iowait</th>
          <th scope="col" className="num">Load 1m</th>
          <th scope="col">Last report</th>
        </tr>
      </thead>
      <tbody>
        {data.hosts.map((host) => (
          <tr key={host.id} data-host={host.hostname}>
            <th scope="row">{host.hostname}</th>
            <td>{host.region}</td>
            <td>
              <span className={`badge badge-${host.status}`}>{STATUS_LABEL[host.status]}</span>
            </td>
            <td className={`num sev-${stealSeverity(host.latest?.stealPct ?? null)}`} data-metric="steal">
              {formatPct(host.latest?.stealPct)}
            </td>
            <td className={`num sev-${iowaitSeverity(host.latest?.iowaitPct ?? null)}`} data-metric="iowait">
              {formatPct(host.latest?.iowaitPct)}
            </td>
            <td className="num">{host.latest?.load1?.toFixed(2) ?? '—'}</td>
            <td>{formatAge(host.latest?.ts ?? host.lastSeenAt, now)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
