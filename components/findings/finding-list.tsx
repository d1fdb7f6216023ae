'use client';

import { useFindingsQuery } from '../hooks/use-findings-query';
import { EmptyState, ErrorState, LoadingState } from '../states';
import { FindingItem } from './finding-item';
import type { FindingsFilter } from './findings-filter';

export const FINDINGS_PER_RULE = 200;

/** The findings of one rule under the page's filters, most severe and newest first. */
export function FindingList({ ruleId, filter, canWrite }: { ruleId: string; filter: FindingsFilter; canWrite: boolean }) {
  const findings = useFindingsQuery({ ...filter, rule: ruleId, limit: FINDINGS_PER_RULE });
  if (findings.isPending) return <LoadingState label="Loading findings…" />;
  if (findings.error && !findings.data) return <ErrorState what="the findings" error={findings.error} onRetry={() => void findings.refetch()} />;
  const { findings: list, truncated } = findings.data!;
  if (list.length === 0)
    return (
      <EmptyState title="No findings of this rule match the filters.">
        <p className="muted">Every host passes it, or the filters above leave them out.</p>
      </EmptyState>
    );
  return (
    <>
      {truncated && (
        <p className="muted">
          Showing the first {FINDINGS_PER_RULE}, most severe first: narrow by region, labels or severity to see the rest.
        </p>
      )}
      <ul className="finding-list" aria-label={`Findings of ${ruleId}`}>
        {list.map((finding) => (
          <FindingItem key={finding.id} finding={finding} canWrite={canWrite} />
        ))}
      </ul>
    </>
  );
}
