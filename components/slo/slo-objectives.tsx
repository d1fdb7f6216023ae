'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { LATENCY_KIND_LABELS } from '@/lib/protocol/latency-kinds';
import type { SloObjective, SloResponse, SloRow } from '@/lib/protocol/read-api/slo';
import { fetchJson } from '../fetch-json';
import { formatCount, type Severity } from '../format';
import { sloKey } from '../query-keys';
import { EmptyState, ErrorState, LoadingState } from '../states';

const SLO_REFRESH_MS = 30_000;
// The shipped burn alerts' thresholds: 14.4× pages (2 % of a 30-day budget in an hour), 6× warns.
const FAST_BURN = 14.4;
const SLOW_BURN = 6;

export function useSloQuery() {
  return useQuery({
    queryKey: sloKey(),
    queryFn: ({ signal }) => fetchJson<SloResponse>('/api/v1/slo', { signal }),
    refetchInterval: SLO_REFRESH_MS,
  });
}

const budgetSeverity = (left: number | null): Severity => (left === null ? 'ok' : left < 0 ? 'bad' : left < 0.25 ? 'warn' : 'ok');
const burnSeverity = (burn: number | null): Severity => (burn === null ? 'ok' : burn > FAST_BURN ? 'bad' : burn > SLOW_BURN ? 'warn' : 'ok');
const formatBudget = (left: number | null) => (left === null ? '—' : left < 0 ? `overspent ${(-left * 100).toFixed(0)} %` : `${(left * 100).toFixed(1)} %`);
const formatBurn = (burn: number | null) => (burn === null ? '—' : `${burn < 10 ? burn.toFixed(2) : burn.toFixed(1)}×`);

function SloRowView({ row }: { row: SloRow }) {
  return (
    <tr data-region={row.region} data-series={row.series}>
      <th scope="row">{row.region}</th>
      <td>
        <code>{row.series}</code>
      </td>
      <td>{row.model ?? <span className="muted">—</span>}</td>
      <td className={`num sev-${budgetSeverity(row.budgetLeft)}`} data-metric="budget">
        {formatBudget(row.budgetLeft)}
      </td>
      <td className={`num sev-${burnSeverity(row.burn1h)}`} data-metric="burn-1h">
        {formatBurn(row.burn1h)}
      </td>
      <td className={`num sev-${burnSeverity(row.burn6h)}`} data-metric="burn-6h">
        {formatBurn(row.burn6h)}
      </td>
      <td className="num" data-metric="requests">
        {formatCount(row.requests)}
      </td>
      <td data-metric="worst-hosts">
        {row.worstHosts.length === 0 ? (
          <span className="muted">none slow in the last hour</span>
        ) : (
          row.worstHosts.map((h, i) => (
            <span key={h.hostId}>
              {i > 0 && ', '}
              <Link href={`/hosts/${h.hostId}`}>{h.hostname}</Link> {(h.slowShare * 100).toFixed(1)} %
            </span>
          ))
        )}
      </td>
    </tr>
  );
}

function ObjectiveView({ objective, budgetDays }: { objective: SloObjective; budgetDays: number }) {
  const what = objective.kinds?.map((k) => LATENCY_KIND_LABELS[k]).join(', ') ?? 'latency';
  return (
    <section aria-label={objective.title}>
      <h2>{objective.title}</h2>
      <p className="muted">
        Judged by {objective.ruleIds.join(', ')}. Budget: {+((1 - objective.objective) * 100).toFixed(3)} % of requests may be slower than{' '}
        {objective.latencyMs} ms over {budgetDays} days; burn 1× spends it exactly in that time.
      </p>
      {objective.rows.length === 0 ? (
        <EmptyState title={`No ${what} series in the last ${budgetDays} days.`} />
      ) : (
        <div className="table-wrap">
          <table className="data" aria-label={`${objective.title} by region`}>
            <thead>
              <tr>
                <th scope="col">Region</th>
                <th scope="col">Series</th>
                <th scope="col">Model</th>
                <th scope="col" className="num">Budget left</th>
                <th scope="col" className="num">Burn 1 h</th>
                <th scope="col" className="num">Burn 6 h</th>
                <th scope="col" className="num">Requests</th>
                <th scope="col">Worst hosts (last hour, share slow)</th>
              </tr>
            </thead>
            <tbody>
              {objective.rows.map((row) => (
                <SloRowView key={`${row.region}\u0000${row.series}\u0000${row.model}`} row={row} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function SloObjectives() {
  const slo = useSloQuery();
  if (slo.isPending) return <LoadingState label="Reading objectives…" />;
  if (slo.error && !slo.data) return <ErrorState what="the objectives" error={slo.error} onRetry={() => void slo.refetch()} />;
  const { objectives, budgetWindowMs } = slo.data!;
  if (objectives.length === 0) {
    return (
      <EmptyState title="No latency objectives: every latency-burn alert rule is disabled.">
        <p className="muted">Enable one on the Alerts page, or create one through the API (docs/alerts.md).</p>
      </EmptyState>
    );
  }
  const budgetDays = Math.round(budgetWindowMs / 86_400_000);
  return (
    <>
      {objectives.map((objective) => (
        <ObjectiveView key={objective.ruleIds.join(',')} objective={objective} budgetDays={budgetDays} />
      ))}
    </>
  );
}
