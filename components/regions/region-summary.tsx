'use client';

import { formatPct } from '../format';
import { useFindingsQuery } from '../hooks/use-findings-query';
import { RESIDENCY_FINDINGS } from '../query-keys';
import { EmptyState, ErrorState, LoadingState } from '../states';
import { useRegionsView } from './use-regions-view';

export function RegionSummary() {
  const { compare, regions, picked } = useRegionsView();
  const residency = useFindingsQuery(RESIDENCY_FINDINGS);
  if (compare.isPending) return <LoadingState label="Comparing regions…" />;
  if (compare.error && !compare.data) return <ErrorState what="the region comparison" error={compare.error} onRetry={() => void compare.refetch()} />;
  if (compare.data!.regions.length === 0) {
    return (
      <EmptyState title="No regions yet — hosts bring their region with their enrollment key.">
        <p className="muted">
          Create a key per region (<code>npm run admin -- keys create --name oslo-prod --region oslo</code>) and start an agent with it;
          the Fleet page shows the command.
        </p>
      </EmptyState>
    );
  }
  if (picked.length < 2) {
    return <EmptyState title="Pick at least two regions above to compare them." />;
  }
  const violations = (region: string) => residency.data?.findings.filter((f) => f.region === region).length;
  return (
    <section aria-label="Regions side by side">
      <h2>Hosts and health</h2>
      <div className="table-wrap">
        <table className="data" aria-label="Region summary">
          <thead>
            <tr>
              <th scope="col">Region</th>
              <th scope="col" className="num">Hosts</th>
              <th scope="col" className="num">Open findings</th>
              <th scope="col" className="num">Steal avg / max</th>
              <th scope="col" className="num">iowait avg / max</th>
              <th scope="col" className="num">Residency violations</th>
            </tr>
          </thead>
          <tbody>
            {regions.map((r) => (
              <tr key={r.region} data-region={r.region}>
                <th scope="row">{r.region}</th>
                <td className="num" data-metric="hosts">{r.hostCount}</td>
                <td className="num" data-metric="findings">
                  <span className="sev-critical">{r.findings.critical}</span> / <span className="sev-warning">{r.findings.warning}</span> /{' '}
                  <span className="sev-info">{r.findings.info}</span>
                </td>
                <td className="num" data-metric="steal">
                  {formatPct(r.stealPctAvg)} / {formatPct(r.stealPctMax)}
                </td>
                <td className="num" data-metric="iowait">
                  {formatPct(r.iowaitPctAvg)} / {formatPct(r.iowaitPctMax)}
                </td>
                <td className={`num ${violations(r.region) ? 'sev-bad' : ''}`} data-metric="residency">
                  {violations(r.region) ?? '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted">Open findings: critical / warning / info. Steal and iowait over every host of the region in the range.</p>
    </section>
  );
}
