'use client';

import type { UseQueryResult } from '@tanstack/react-query';
import { useState } from 'react';
import type { AnnotationKind, HostAnnotationsResponse } from '@/lib/protocol/read-api/annotations';
import { LocalTime } from '../time/local-time';
import { CodeSpans } from '../code-spans';

const KIND_LABEL: Record<AnnotationKind, string> = {
  inventory: 'inventory changed',
  'finding-opened': 'finding opened',
  'finding-resolved': 'finding resolved',
  'alert-fired': 'alert fired',
  'alert-resolved': 'alert resolved',
};

const SHOWN = 8;

/** The events the charts mark, as text: what each I, F and A mark on the charts stands for. */
export function AnnotationList({ query }: { query: UseQueryResult<HostAnnotationsResponse> }) {
  const [all, setAll] = useState(false);
  const annotations = query.data?.annotations ?? [];
  const newestFirst = [...annotations].reverse();
  const shown = all ? newestFirst : newestFirst.slice(0, SHOWN);
  return (
    <div className="panel annotations" aria-label="Events in this range">
      <div className="chart-head">
        <h3>Events in this range</h3>
        <span className="muted legend-keys">
          <span className="mark mark-inventory">I</span> inventory change <span className="mark mark-finding">F</span> finding{' '}
          <span className="mark mark-alert">A</span> alert — marked on every chart
        </span>
      </div>
      {query.error && !query.data ? (
        <p className="error">Could not load the events: {query.error.message}. The charts are drawn without their marks.</p>
      ) : query.isPending ? (
        <p className="muted">Loading events…</p>
      ) : annotations.length === 0 ? (
        <p className="muted">No inventory changes, findings or alerts in this range.</p>
      ) : (
        <>
          <ul className="event-list">
            {shown.map((a) => (
              <li key={`${a.kind}-${a.t}-${a.refId ?? ''}`} data-annotation-kind={a.kind} className={a.severity ? `sev-${a.severity}` : undefined}>
                <LocalTime iso={new Date(a.t).toISOString()} /> <span className="badge">{KIND_LABEL[a.kind]}</span> <strong>{a.title}</strong>
                {a.detail && (
                  <span className="event-detail">
                    {' '}
                    — <CodeSpans text={a.detail} />
                  </span>
                )}
              </li>
            ))}
          </ul>
          {newestFirst.length > SHOWN && (
            <button type="button" className="button" onClick={() => setAll(!all)} aria-expanded={all}>
              {all ? 'Show fewer' : `Show all ${newestFirst.length}`}
            </button>
          )}
          {query.data?.truncated && <p className="muted">Only the newest {annotations.length} events are marked; narrow the range to see older ones.</p>}
        </>
      )}
    </div>
  );
}
