'use client';

import Link from 'next/link';
import type { ReactNode } from 'react';
import { SEVERITIES } from '@/lib/protocol/findings';
import { formatCount, formatMs } from '../format';
import { useAlertsQuery } from '../hooks/use-alerts-query';
import { useFleetQuery } from '../hooks/use-fleet-query';
import { useFleetUrlState } from './use-fleet-url-state';

function Tile({ label, value, children, testId }: { label: string; value: ReactNode; children?: ReactNode; testId: string }) {
  return (
    <div className="tile" data-testid={testId}>
      <p className="tile-label">{label}</p>
      <p className="tile-value">{value}</p>
      <div className="tile-note">{children}</div>
    </div>
  );
}

export function FleetTiles() {
  const { state, setState, query } = useFleetUrlState();
  const fleet = useFleetQuery(query);
  const alerts = useAlertsQuery({ state: 'firing' });
  const tiles = fleet.data?.tiles;
  const pressed = (finding: (typeof state)['finding']) => state.finding === finding;
  const toggleFinding = (finding: NonNullable<(typeof state)['finding']>) =>
    setState({ finding: pressed(finding) ? null : finding, page: null });

  return (
    <section aria-label="Fleet at a glance" className="tiles">
      <Tile label="Hosts reporting" testId="tile-reporting" value={tiles ? `${formatCount(tiles.reporting)} / ${formatCount(tiles.hosts)}` : '—'}>
        {tiles && (
          <button
            type="button"
            className="chip"
            aria-pressed={state.status.length === 1 && state.status[0] === 'stale'}
            onClick={() => setState({ status: state.status.length === 1 && state.status[0] === 'stale' ? null : ['stale'], page: null })}
          >
            {formatCount(tiles.stale)} stale
          </button>
        )}{' '}
        {tiles && tiles.neverReported > 0 && <span>{formatCount(tiles.neverReported)} never reported</span>}
      </Tile>
      <Tile
        label="Alerts firing"
        testId="tile-alerts"
        value={alerts.data ? `${formatCount(alerts.data.alerts.length)}${alerts.data.truncated ? '+' : ''}` : '—'}
      >
        {alerts.error ? <span>Alerts unavailable: {alerts.error.message}</span> : <Link href="/alerts">Open alerts</Link>}
      </Tile>
      <Tile
        label="Misconfigured hosts"
        testId="tile-misconfigured"
        value={tiles ? formatCount(SEVERITIES.reduce((sum, severity) => sum + tiles.misconfiguredHosts[severity], 0)) : '—'}
      >
        {tiles && (
          <span className="chips">
            {SEVERITIES.map((severity) => (
              <button
                key={severity}
                type="button"
                className={`chip sev-${severity}`}
                aria-pressed={pressed(severity)}
                onClick={() => toggleFinding(severity)}
                aria-label={`${tiles.misconfiguredHosts[severity]} hosts whose worst finding is ${severity}: show only them`}
              >
                {formatCount(tiles.misconfiguredHosts[severity])} {severity}
              </button>
            ))}
          </span>
        )}
      </Tile>
      <Tile label={query.latency ? `Fleet p99 · ${query.latency}` : 'Fleet p99'} testId="tile-p99" value={tiles ? formatMs(tiles.p99Ms) : '—'}>
        {tiles &&
          (tiles.latencyCount > 0
            ? `last ${tiles.latencyWindowMs / 60_000} min · ${formatCount(tiles.latencyCount)} requests`
            : `no request timings in the last ${tiles.latencyWindowMs / 60_000} min`)}
      </Tile>
    </section>
  );
}
