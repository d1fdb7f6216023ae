'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import clsx from 'clsx';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import type { Alert, AlertRule, Silence } from '@/lib/protocol/alerts';
import { CodeSpans } from '../code-spans';
import { sendJson } from '../send-json';
import { LocalTime } from '../time/local-time';
import { SilenceForm } from './silence-form';
import { matchersForAlert } from './silence-match';

const HIDDEN_LABELS = new Set(['alertname', 'severity']);

function formatValue(value: number | null): string {
  if (value === null) return '—';
  const abs = Math.abs(value);
  return value.toFixed(abs >= 100 ? 0 : abs >= 10 ? 1 : 2);
}

function AcknowledgeAlert({ alert, onDone }: { alert: Alert; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [by, setBy] = useState('');
  const [comment, setComment] = useState('');
  const ack = useMutation({
    mutationFn: (body: object) => sendJson<Alert>(`/api/v1/alerts/${alert.id}/acknowledgement`, { method: 'PUT', body: JSON.stringify(body) }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['alerts'] });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    ack.mutate({ by: by.trim(), comment: comment.trim() });
  };
  return (
    <form className="inline-form" aria-label="Acknowledge alert" onSubmit={submit}>
      <label className="field">
        Who
        <input type="text" required value={by} onChange={(e) => setBy(e.target.value)} placeholder="oncall" autoFocus />
      </label>
      <label className="field">
        Note
        <input type="text" value={comment} onChange={(e) => setComment(e.target.value)} placeholder="looking into it" />
      </label>
      <button type="submit" className="button" disabled={ack.isPending}>
        Acknowledge
      </button>
      <button type="button" className="button" onClick={onDone}>
        Cancel
      </button>
      {ack.error && <span className="error">{ack.error.message}</span>}
    </form>
  );
}

/** One alert: rule, instance labels, value against threshold, when; acknowledge or silence it as an editor. */
export function AlertItem({ alert, rule, silencedBy, canWrite }: { alert: Alert; rule: AlertRule | undefined; silencedBy: Silence[]; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const [mode, setMode] = useState<'ack' | 'silence' | null>(null);
  const clearAck = useMutation({
    mutationFn: () => sendJson<Alert>(`/api/v1/alerts/${alert.id}/acknowledgement`, { method: 'DELETE' }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['alerts'] }),
  });
  const labels = Object.entries(alert.labels).filter(([name]) => !HIDDEN_LABELS.has(name));
  const disabledTitle = canWrite ? undefined : 'Acknowledging and silencing need the editor role';
  return (
    <li className={clsx('alert-item', `alert-${alert.severity}`)} data-alert-id={alert.id} data-alert-state={alert.state}>
      <div className="alert-head">
        <span className={`badge badge-${alert.severity}`}>{alert.severity}</span>
        <span className={`badge alert-state-${alert.state}`}>{alert.state}</span>
        <strong>{rule?.title ?? alert.ruleId}</strong>
        <code className="rule-id">{alert.ruleId}</code>
        {alert.hostId !== null && (
          <Link className="host-link" href={`/hosts/${alert.hostId}`} data-testid="alert-host">
            {alert.labels.host ?? `host #${alert.hostId}`}
          </Link>
        )}
        {silencedBy.length > 0 && (
          <span className="badge badge-acked" title={silencedBy.map((s) => s.comment).join('\n')} data-testid="silenced">
            silenced
          </span>
        )}
        {alert.acknowledgement && <span className="badge badge-acked">acknowledged</span>}
      </div>
      <span className="labels" aria-label="Labels">
        {labels.map(([name, value]) => (
          <span key={name} className="label">{`${name}=${value}`}</span>
        ))}
      </span>
      {alert.annotations.summary && (
        <p className="finding-message">
          <CodeSpans text={alert.annotations.summary} />
        </p>
      )}
      {alert.annotations.description && (
        <p className="muted">
          <CodeSpans text={alert.annotations.description} />
        </p>
      )}
      {alert.annotations.likely_cause && (
        <p>
          <strong>Likely cause: </strong>
          <CodeSpans text={alert.annotations.likely_cause} />
        </p>
      )}
      <p className="muted finding-times">
        value {formatValue(alert.value)} (peak {formatValue(alert.peakValue)}) against threshold {formatValue(alert.threshold)} · pending since{' '}
        <LocalTime iso={alert.pendingAt} />
        {alert.firedAt && (
          <>
            {' '}
            · firing since <LocalTime iso={alert.firedAt} />
          </>
        )}
        {alert.resolvedAt && (
          <>
            {' '}
            · resolved <LocalTime iso={alert.resolvedAt} />
          </>
        )}
      </p>
      {alert.acknowledgement && (
        <p className="ack-note">
          Acknowledged by <span className="ack-reason">{alert.acknowledgement.by}</span> <LocalTime iso={alert.acknowledgement.at} />
          {alert.acknowledgement.comment && `: ${alert.acknowledgement.comment}`}
        </p>
      )}
      {alert.state !== 'resolved' && (
        <div className="finding-actions">
          {mode === 'ack' && <AcknowledgeAlert alert={alert} onDone={() => setMode(null)} />}
          {mode === 'silence' && <SilenceForm initial={matchersForAlert(alert.labels)} onDone={() => setMode(null)} />}
          {mode === null && (
            <span className="inline-form">
              {alert.acknowledgement ? (
                <button type="button" className="button" disabled={!canWrite || clearAck.isPending} title={disabledTitle} onClick={() => clearAck.mutate()}>
                  Clear acknowledgement
                </button>
              ) : (
                <button type="button" className="button" disabled={!canWrite} title={disabledTitle} onClick={() => setMode('ack')}>
                  Acknowledge…
                </button>
              )}
              <button type="button" className="button" disabled={!canWrite} title={disabledTitle} onClick={() => setMode('silence')}>
                Silence…
              </button>
              {clearAck.error && <span className="error">{clearAck.error.message}</span>}
            </span>
          )}
        </div>
      )}
    </li>
  );
}
