'use client';

import { useFindingsQuery } from '../hooks/use-findings-query';
import { RESIDENCY_FINDINGS } from '../query-keys';
import { useResidencyPoliciesQuery } from '../hooks/use-residency-policies-query';
import { residencyRows } from './region-mappers';
import { useRegionsView } from './use-regions-view';

export function RegionResidency() {
  const { regions, picked } = useRegionsView();
  const policies = useResidencyPoliciesQuery();
  const findings = useFindingsQuery(RESIDENCY_FINDINGS);
  if (picked.length < 2 || regions.length === 0) return null;
  const names = regions.map((r) => r.region);
  const rows = policies.data && findings.data ? residencyRows(policies.data.policies, findings.data.findings, names) : [];
  return (
    <section aria-label="Residency policies">
      <h2>Residency policies</h2>
      {policies.error || findings.error ? (
        <p className="error" role="alert">Could not load residency policies: {(policies.error ?? findings.error)!.message}</p>
      ) : !policies.data ? (
        <p className="muted">Loading policies…</p>
      ) : rows.length === 0 ? (
        <p className="muted">
          No residency policies. An admin adds one with <code>PUT /api/v1/findings/residency-policies</code> (name, label selector,
          allowed regions); hosts it selects outside those regions then get a critical finding.
        </p>
      ) : (
        <div className="table-wrap">
          <table className="data" aria-label="Residency policies">
            <thead>
              <tr>
                <th scope="col">Policy</th>
                <th scope="col">Selects</th>
                <th scope="col">Allowed regions</th>
                {names.map((name) => (
                  <th key={name} scope="col">
                    {name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.policy.id} data-policy={row.policy.name}>
                  <th scope="row">{row.policy.name}</th>
                  <td>
                    {Object.entries(row.policy.selector)
                      .map(([k, v]) => `${k}=${v}`)
                      .join(', ') || 'every host'}
                  </td>
                  <td>{row.policy.allowedRegions.join(', ')}</td>
                  {row.violations.map((count, i) => (
                    <td key={names[i]} className={count > 0 ? 'sev-bad' : undefined}>
                      {count > 0 ? `${count} host${count === 1 ? '' : 's'} in violation` : row.allowed[i] ? 'allowed, compliant' : 'not allowed, no hosts'}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
