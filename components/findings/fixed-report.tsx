'use client';

import Link from 'next/link';
import { useState } from 'react';
import type { FindingEffect, FixedFindingsResponse } from '@/lib/protocol/findings';
import { FixEffect } from '../fix-effect/fix-effect';
import { useFixedFindingsQuery } from '../hooks/use-fixed-findings-query';
import { ErrorState, LoadingState } from '../states';
import { LocalTime } from '../time/local-time';
import { useFindingsUrlState } from './use-findings-url-state';

const RANGES = [
  { days: 1, label: '24 h' },
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
] as const;

const OUTCOME_TEXT: Record<NonNullable<FindingEffect['outcome']>, string> = {
  improved: 'latency improved',
  worse: 'latency worse',
  'no-change': 'no change seen',
  'not-enough-requests': 'not enough requests to compare',
};

function Totals({ totals }: { totals: FixedFindingsResponse['totals'] }) {
  const measuring = totals.resolved - totals.measured;
  return (
    <p data-testid="fixed-totals">
      <strong>{totals.resolved}</strong> fixed · {totals.improved} improved latency · {totals.worse} worse · {totals.noChange} no change seen ·{' '}
      {totals.notEnoughRequests} without enough requests to compare{measuring > 0 ? ` · ${measuring} not measured yet` : ''}
    </p>
  );
}

/** What was fixed across the fleet in a range and what each fix bought: the report ops teams send upward. */
export function FixedReport() {
  const { filter } = useFindingsUrlState();
  const [days, setDays] = useState<number>(7);
  const query = useFixedFindingsQuery({ days, region: filter.region, labels: filter.labels });
  return (
    <details className="panel fixed-report" data-testid="fixed-report">
      <summary>
        <h2>Fixed, and what it bought</h2>
      </summary>
      <div className="chart-head">
        <span className="muted">Resolved findings, with p99 the hour before the fix against the hour after it.</span>
        <span role="group" aria-label="Range">
          {RANGES.map((r) => (
            <button key={r.days} type="button" className="button" aria-pressed={days === r.days} onClick={() => setDays(r.days)}>
              {r.label}
            </button>
          ))}
        </span>
      </div>
      {query.error && !query.data ? (
        <ErrorState what="the fixed findings" error={query.error} onRetry={() => void query.refetch()} />
      ) : !query.data ? (
        <LoadingState label="Loading fixes…" />
      ) : (
        <>
          <Totals totals={query.data.totals} />
          {query.data.findings.length === 0 ? (
            <p className="muted">Nothing was fixed in this range.</p>
          ) : (
            <ul className="finding-list">
              {query.data.findings.map((f) => (
                <li key={f.id} className="finding" data-finding-id={f.id}>
                  <div className="finding-head">
                    <strong>{f.title}</strong>
                    <Link className="host-link" href={`/hosts/${f.hostId}#finding-${f.id}`}>
                      {f.hostname ?? `host #${f.hostId}`}
                    </Link>
                    <span className="muted">{f.region}</span>
                    {f.subject && <span className="subject agent-text">{f.subject}</span>}
                    {f.effect?.outcome && <span className="badge">{OUTCOME_TEXT[f.effect.outcome]}</span>}
                  </div>
                  {f.effect ? (
                    <FixEffect effect={f.effect} />
                  ) : (
                    <p className="muted">
                      Resolved <LocalTime iso={f.resolvedAt!} />; not measured (resolved before measuring began, or too long ago).
                    </p>
                  )}
                </li>
              ))}
            </ul>
          )}
          {query.data.truncated && <p className="muted">Only the newest {query.data.findings.length} are listed.</p>}
        </>
      )}
    </details>
  );
}
