'use client';

import Link from 'next/link';
import { STATUS_LABEL } from '../fleet/status-label';
import { useHostQuery } from '../hooks/use-host-query';
import { ErrorState, LoadingState } from '../states';
import { RelativeTime } from '../time/relative-time';
import { fleetRegionUrl } from './host-queries';
import { HostTokenActions } from './host-token-actions';

/** The host's name, region, labels and status, with the ways out (its region on the fleet page, compare), and an admin's token levers. */
export function HostHeader({ hostId }: { hostId: number }) {
  const query = useHostQuery(hostId);
  if (query.error && !query.data) return <ErrorState what="this host" error={query.error} onRetry={() => void query.refetch()} />;
  if (!query.data) return <LoadingState label="Loading host…" />;
  const host = query.data;
  const labels = Object.entries(host.labels);
  const open = host.findings.critical + host.findings.warning + host.findings.info;
  return (
    <div className="page-head host-head">
      <div>
        <p className="breadcrumb muted">
          <Link href="/">Fleet</Link> / <Link href={fleetRegionUrl(host.region)}>{host.region}</Link>
        </p>
        <h1 data-testid="hostname">{host.hostname}</h1>
        <p className="host-facts">
          <span className={`badge badge-${host.status}`}>{STATUS_LABEL[host.status]}</span> last report{' '}
          <RelativeTime iso={host.latest?.ts ?? host.lastSeenAt} now={new Date(query.dataUpdatedAt)} />
          {host.agentVersion && <span data-testid="agent-version"> · agent {host.agentVersion}</span>}
          {' · '}
          {open === 0 ? 'no open findings' : `${open} open finding${open === 1 ? '' : 's'}`}
        </p>
        {labels.length > 0 && (
          <p className="labels" aria-label="Labels">
            {labels.map(([key, value]) => (
              <span key={key} className="label" title={`${key}=${value}`}>
                {key}={value}
              </span>
            ))}
          </p>
        )}
      </div>
      <div>
        <p>
          <Link className="button" href={`/compare?region=${encodeURIComponent(host.region)}&metric=cpu_steal`}>
            Compare with {host.region}&apos;s hosts
          </Link>
        </p>
        <HostTokenActions host={host} />
      </div>
    </div>
  );
}
