'use client';

import { formatMs } from '../format';
import { probeRows } from './region-mappers';
import { useRegionsView } from './use-regions-view';

export function RegionProbes() {
  const { regions, picked } = useRegionsView();
  if (picked.length < 2 || regions.length === 0) return null;
  const rows = probeRows(regions);
  return (
    <section aria-label="Probe round trips">
      <h2>Probe RTT per target</h2>
      {rows.length === 0 ? (
        <p className="muted">
          No probes in this range. Give the agents targets to probe (<code>INFERWATCH_PROBE=oslo=tcp://gw.example:443</code>) to see
          which region is closer to your users.
        </p>
      ) : (
        <div className="table-wrap">
          <table className="data" aria-label="Probe RTT">
            <thead>
              <tr>
                <th scope="col">Target</th>
                {regions.map((r) => (
                  <th key={r.region} scope="col" className="num">
                    {r.region}: connect / response
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.name} data-probe={row.name}>
                  <th scope="row">{row.name}</th>
                  {row.cells.map((cell, i) => (
                    <td key={regions[i]!.region} className="num" data-region={regions[i]!.region}>
                      {cell ? (
                        <>
                          {formatMs(cell.connectMsAvg)} / {formatMs(cell.responseMsAvg)}
                          {cell.okRatio !== null && cell.okRatio < 1 && <span className="sev-warn"> ({((1 - cell.okRatio) * 100).toFixed(0)} % failed)</span>}
                        </>
                      ) : (
                        <span className="muted">not probed</span>
                      )}
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
