'use client';

import Link from 'next/link';
import { useState } from 'react';
import type { Finding } from '@/lib/protocol/findings';
import { useFindingsQuery } from '../hooks/use-findings-query';
import { FixEffect } from '../fix-effect/fix-effect';
import { ErrorState, LoadingState } from '../states';
import { LocalTime } from '../time/local-time';
import { CodeSpans } from '../code-spans';
import { hostFindingsQuery } from './host-queries';
import { evidenceText, splitFindings } from './inventory-view';

function FindingCard({ finding }: { finding: Finding }) {
  const { evidence, acknowledgement: ack } = finding;
  return (
    <li id={`finding-${finding.id}`} className={`finding finding-${finding.severity} host-finding`} data-finding-id={finding.id} data-rule={finding.ruleId}>
      <div className="finding-head">
        <span className={`badge badge-${finding.severity}`}>{finding.severity}</span>
        <strong>{finding.title}</strong>
        {finding.subject && (
          <span className="subject" title="what on the host it is about">
            {finding.subject}
          </span>
        )}
        {finding.state !== 'open' && <span className="badge">{finding.state}</span>}
        {ack && <span className="badge">acknowledged</span>}
      </div>
      <p className="finding-message">
        <CodeSpans text={finding.message} />
      </p>
      {finding.effect && <FixEffect effect={finding.effect} />}
      <div className="finding-remedy" data-testid="finding-remedy">
        <strong>Remedy</strong>
        <p className="remedy-text">
          <CodeSpans text={finding.remedy} />
        </p>
      </div>
      {(evidence.values.length > 0 || evidence.causes?.length) && (
        <details className="evidence" open={finding.severity === 'critical' && finding.state !== 'resolved'}>
          <summary>Evidence</summary>
          {evidence.values.length > 0 && (
            <dl className="evidence-values">
              {evidence.values.map((value, i) => (
                <div key={i}>
                  <dt>{value.label}</dt>
                  <dd>{evidenceText(value)}</dd>
                </div>
              ))}
            </dl>
          )}
          {evidence.causes && evidence.causes.length > 0 && (
            <ol className="causes">
              {evidence.causes.map((cause, i) => (
                <li key={i}>{cause.summary}</li>
              ))}
            </ol>
          )}
          {evidence.window && (
            <p className="muted">
              Measured <LocalTime iso={evidence.window.from} /> – <LocalTime iso={evidence.window.to} />
            </p>
          )}
        </details>
      )}
      <p className="muted finding-times">
        {finding.openedAt ? 'Opened' : 'First seen'} <LocalTime iso={finding.openedAt ?? finding.firstSeenAt} />
        {finding.resolvedAt && (
          <>
            {' '}
            · resolved <LocalTime iso={finding.resolvedAt} />
          </>
        )}
        {ack && (
          <>
            {' '}
            · acknowledged: <span className="ack-reason">{ack.reason}</span>
          </>
        )}{' '}
        · <Link href={`/findings?rule=${encodeURIComponent(finding.ruleId)}`}>about this check</Link>
      </p>
    </li>
  );
}

const RESOLVED_SHOWN = 5;

/** One line per open finding near the top of the page, each a link to its card with the evidence and remedy. */
export function FindingsSummary({ hostId }: { hostId: number }) {
  const query = useFindingsQuery(hostFindingsQuery(hostId));
  if (!query.data) return null;
  const { active } = splitFindings(query.data.findings);
  if (active.length === 0) return null;
  return (
    <nav aria-label="Open findings" className="findings-summary">
      <strong>Open findings:</strong>
      <ul>
        {active.map((f) => (
          <li key={f.id}>
            <a href={`#finding-${f.id}`}>
              <span className={`badge badge-${f.severity}`}>{f.severity}</span> {f.title}
              {f.subject && <span className="muted agent-text"> · {f.subject}</span>}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The host's open findings with their evidence and remedy, and the history of those resolved. */
export function HostFindings({ hostId }: { hostId: number }) {
  const query = useFindingsQuery(hostFindingsQuery(hostId));
  const [allResolved, setAllResolved] = useState(false);
  if (query.error && !query.data) return <ErrorState what="the host's findings" error={query.error} onRetry={() => void query.refetch()} />;
  if (!query.data) return <LoadingState label="Loading findings…" />;
  const { active, resolved } = splitFindings(query.data.findings);
  return (
    <section aria-labelledby="findings-heading" className="host-findings">
      <h2 id="findings-heading">
        Findings <span className="muted">({active.length} open)</span>
      </h2>
      {active.length === 0 ? (
        <p className="muted">No open findings: every check passes on this host&apos;s newest inventory and recent series.</p>
      ) : (
        <ul className="finding-list">
          {active.map((f) => (
            <FindingCard key={f.id} finding={f} />
          ))}
        </ul>
      )}
      {resolved.length > 0 && (
        <details className="resolved-findings">
          <summary>Resolved ({resolved.length})</summary>
          <ul className="finding-list">
            {(allResolved ? resolved : resolved.slice(0, RESOLVED_SHOWN)).map((f) => (
              <FindingCard key={f.id} finding={f} />
            ))}
          </ul>
          {resolved.length > RESOLVED_SHOWN && (
            <button type="button" className="button" onClick={() => setAllResolved(!allResolved)}>
              {allResolved ? 'Show fewer' : `Show all ${resolved.length}`}
            </button>
          )}
        </details>
      )}
    </section>
  );
}
