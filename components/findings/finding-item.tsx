'use client';

import clsx from 'clsx';
import Link from 'next/link';
import { useState } from 'react';
import type { EvidenceValue, Finding } from '@/lib/protocol/findings';
import { CodeSpans } from '../code-spans';
import { FixEffect } from '../fix-effect/fix-effect';
import { LocalTime } from '../time/local-time';
import { AcknowledgeForm, ClearAcknowledgementButton } from './acknowledge-form';

function formatEvidence(value: EvidenceValue): string {
  if (value.value === null) return '—';
  if (typeof value.value === 'boolean') return value.value ? 'yes' : 'no';
  if (typeof value.value === 'number') {
    const rounded = Number.isInteger(value.value) ? String(value.value) : value.value.toFixed(Math.abs(value.value) >= 10 ? 1 : 2);
    return value.unit ? `${rounded} ${value.unit}` : rounded;
  }
  return value.unit ? `${value.value} ${value.unit}` : value.value;
}

/** One finding: where, what was measured, what to do; acknowledge or clear it as an editor. */
export function FindingItem({ finding, canWrite }: { finding: Finding; canWrite: boolean }) {
  const [acknowledging, setAcknowledging] = useState(false);
  const ack = finding.acknowledgement;
  return (
    <li className={clsx('finding', `finding-${finding.severity}`, ack && 'finding-acked')} data-finding-id={finding.id}>
      <div className="finding-head">
        <span className={`badge badge-${finding.severity}`}>{finding.severity}</span>
        {finding.hostId !== null ? (
          <Link className="host-link" href={`/hosts/${finding.hostId}`} data-testid="finding-host">
            {finding.hostname ?? `host #${finding.hostId}`}
          </Link>
        ) : (
          <span className="host-link">region-wide</span>
        )}
        <span className="muted">{finding.region}</span>
        {finding.subject && <span className="subject" title="what on the host it is about">{finding.subject}</span>}
        {finding.state !== 'open' && <span className="badge">{finding.state}</span>}
        {ack && <span className="badge badge-acked">acknowledged</span>}
      </div>
      <p className="finding-message">
        <CodeSpans text={finding.message} />
      </p>
      {finding.effect && <FixEffect effect={finding.effect} />}
      <p className="finding-remedy">
        <strong>Remedy: </strong>
        <CodeSpans text={finding.remedy} />
      </p>
      {finding.evidence.values.length > 0 && (
        <details className="evidence">
          <summary>Evidence</summary>
          <dl>
            {finding.evidence.values.map((value, i) => (
              <div key={i}>
                <dt>{value.label}</dt>
                <dd>{formatEvidence(value)}</dd>
              </div>
            ))}
          </dl>
          {finding.evidence.window && (
            <p className="muted">
              measured <LocalTime iso={finding.evidence.window.from} /> – <LocalTime iso={finding.evidence.window.to} />
            </p>
          )}
        </details>
      )}
      <p className="muted finding-times">
        first seen <LocalTime iso={finding.firstSeenAt} />
        {finding.resolvedAt && (
          <>
            {' '}
            · resolved <LocalTime iso={finding.resolvedAt} />
          </>
        )}
        {' '}
        · last judged <LocalTime iso={finding.updatedAt} />
      </p>
      {ack && (
        <p className="ack-note" data-testid="ack-note">
          Acknowledged <LocalTime iso={ack.at} />: <span className="ack-reason">{ack.reason}</span>
          {ack.expiresAt ? (
            <>
              {' '}
              (until <LocalTime iso={ack.expiresAt} />)
            </>
          ) : (
            ' (until cleared)'
          )}
        </p>
      )}
      {finding.state !== 'resolved' && (
        <div className="finding-actions">
          {acknowledging ? (
            <AcknowledgeForm finding={finding} onDone={() => setAcknowledging(false)} />
          ) : ack ? (
            canWrite && <ClearAcknowledgementButton finding={finding} />
          ) : (
            <button
              type="button"
              className="button"
              disabled={!canWrite}
              title={canWrite ? undefined : 'Acknowledging needs the editor role'}
              onClick={() => setAcknowledging(true)}
            >
              Acknowledge…
            </button>
          )}
        </div>
      )}
    </li>
  );
}
