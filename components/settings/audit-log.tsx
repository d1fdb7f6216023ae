'use client';

import { useState } from 'react';
import type { AuditEntryView } from '@/lib/protocol/auth';
import { AUDIT_PAGE_SIZE, useAuditQuery } from '../hooks/use-audit-query';
import { useAccess } from '../hooks/use-session-query';
import { EmptyState, ErrorState, LoadingState } from '../states';
import { LocalTime } from '../time/local-time';
import { describeAudit } from './audit-describe';

// Names, targets and details may quote what agents and users sent: rendered as text only.
function AuditTable({ entries }: { entries: AuditEntryView[] }) {
  return (
    <div className="table-wrap">
      <table className="data" aria-label="Audit log">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">What to</th>
            <th scope="col">From</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => {
            const { what, detail } = describeAudit(entry);
            return (
            <tr key={entry.id} data-audit-action={entry.action}>
              <td>
                <LocalTime iso={entry.at} />
              </td>
              <td>
                {entry.actorName} <span className="muted">({entry.actorKind})</span>
              </td>
              <td>
                {what} <code className="muted">{entry.action}</code>
              </td>
              <td title={Object.keys(entry.detail).length > 0 ? JSON.stringify(entry.detail) : undefined}>
                {entry.target}
                {detail && <span className="muted"> — {detail}</span>}
              </td>
              <td>{entry.ip || <span className="muted">—</span>}</td>
            </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The audit log (admins only): every write, newest first, a page at a time. */
export function AuditLog() {
  const { canAdmin } = useAccess();
  const [pages, setPages] = useState<number[]>([]);
  const before = pages.at(-1) ?? null;
  const audit = useAuditQuery(before);
  if (!canAdmin) return null;
  const entries = audit.data?.entries ?? [];
  const oldest = entries.at(-1);
  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit log</h2>
      <p className="muted">Every write: who did what to what, when, and from which address. Newest first.</p>
      {audit.isPending ? (
        <LoadingState label="Loading the audit log…" />
      ) : audit.error && !audit.data ? (
        <ErrorState what="the audit log" error={audit.error} onRetry={() => void audit.refetch()} />
      ) : entries.length === 0 ? (
        <EmptyState title={before === null ? 'Nothing audited yet.' : 'No older entries.'} />
      ) : (
        <AuditTable entries={entries} />
      )}
      <div className="inline-form">
        {before !== null && (
          <>
            <button type="button" className="button" onClick={() => setPages([])}>
              Newest
            </button>
            <button type="button" className="button" onClick={() => setPages(pages.slice(0, -1))}>
              Newer
            </button>
          </>
        )}
        {oldest && entries.length === AUDIT_PAGE_SIZE && (
          <button type="button" className="button" disabled={audit.isPlaceholderData} onClick={() => setPages([...pages, oldest.id])}>
            Older
          </button>
        )}
      </div>
    </section>
  );
}
