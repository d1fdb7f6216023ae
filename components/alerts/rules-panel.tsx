'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { SERIES_METRICS } from '@/lib/protocol/read-api/series';
import type { AlertRule } from '@/lib/protocol/alerts';
import { SEVERITIES, type Severity } from '@/lib/protocol/findings';
import { useAccess } from '../hooks/use-session-query';
import { useAlertRulesQuery } from '../hooks/use-alert-config-queries';
import { sendJson } from '../send-json';
import { EmptyState, ErrorState, LoadingState } from '../states';
import { describeSpec } from './rule-summary';

function useRuleMutation<T>(fn: (input: T) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['alert-rules'] }) });
}

function RuleRow({ rule, canWrite }: { rule: AlertRule; canWrite: boolean }) {
  const toggle = useRuleMutation((enabled: boolean) =>
    sendJson(`/api/v1/alerts/rules/${encodeURIComponent(rule.id)}`, { method: 'PATCH', body: JSON.stringify({ enabled }) }),
  );
  const remove = useRuleMutation(() => sendJson(`/api/v1/alerts/rules/${encodeURIComponent(rule.id)}`, { method: 'DELETE' }));
  const error = toggle.error ?? remove.error;
  return (
    <tr data-alert-rule={rule.id}>
      <th scope="row">
        {rule.title}
        <br />
        <code className="rule-id">{rule.id}</code>
      </th>
      <td>
        <span className={`badge badge-${rule.severity}`}>{rule.severity}</span>
      </td>
      <td>{describeSpec(rule.spec)}</td>
      <td>{rule.builtin ? 'shipped' : 'custom'}</td>
      <td>{rule.enabled ? 'enabled' : <span className="muted">disabled</span>}</td>
      <td>
        <span className="inline-form">
          <button type="button" className="button" disabled={!canWrite || toggle.isPending} onClick={() => toggle.mutate(!rule.enabled)}>
            {rule.enabled ? 'Disable' : 'Enable'}
          </button>
          {!rule.builtin && (
            <button type="button" className="button danger" disabled={!canWrite || remove.isPending} onClick={() => remove.mutate(undefined)}>
              Delete
            </button>
          )}
          {error && <span className="error">{error.message}</span>}
        </span>
      </td>
    </tr>
  );
}

function NewSeriesRuleForm() {
  const [id, setId] = useState('');
  const [title, setTitle] = useState('');
  const [severity, setSeverity] = useState<Severity>('warning');
  const [series, setSeries] = useState<string>('cpu_steal');
  const [aggregation, setAggregation] = useState<'avg' | 'max'>('avg');
  const [windowS, setWindowS] = useState('60');
  const [threshold, setThreshold] = useState('');
  const [clearThreshold, setClearThreshold] = useState('');
  const [forS, setForS] = useState('0');
  const create = useRuleMutation((body: object) => sendJson('/api/v1/alerts/rules', { method: 'POST', body: JSON.stringify(body) }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const t = Number(threshold);
    create.mutate({
      id: id.trim(),
      title: title.trim(),
      severity,
      spec: {
        metric: { kind: 'series', series, aggregation },
        windowMs: Number(windowS) * 1000,
        threshold: t,
        clearThreshold: clearThreshold.trim() === '' ? t : Number(clearThreshold),
        forMs: Number(forS) * 1000,
      },
    });
  };
  return (
    <form className="filters" aria-label="New alert rule" onSubmit={submit}>
      <label className="field">
        Id
        <input type="text" required value={id} onChange={(e) => setId(e.target.value)} placeholder="steal-oslo" pattern="[a-z0-9]+([.\-][a-z0-9]+)*" title="lower case, digits, . and -" />
      </label>
      <label className="field">
        Title
        <input type="text" required value={title} onChange={(e) => setTitle(e.target.value)} placeholder="Steal in Oslo" />
      </label>
      <label className="field">
        Severity
        <select value={severity} onChange={(e) => setSeverity(e.target.value as Severity)}>
          {SEVERITIES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <label className="field">
        Series
        <select value={series} onChange={(e) => setSeries(e.target.value)}>
          {SERIES_METRICS.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </label>
      <label className="field">
        Aggregation
        <select value={aggregation} onChange={(e) => setAggregation(e.target.value as 'avg' | 'max')}>
          <option>avg</option>
          <option>max</option>
        </select>
      </label>
      <label className="field">
        Window (s)
        <input type="number" min={10} required value={windowS} onChange={(e) => setWindowS(e.target.value)} />
      </label>
      <label className="field">
        Above
        <input type="number" step="any" required value={threshold} onChange={(e) => setThreshold(e.target.value)} />
      </label>
      <label className="field">
        Clears at or below
        <input type="number" step="any" value={clearThreshold} onChange={(e) => setClearThreshold(e.target.value)} placeholder="same" />
      </label>
      <label className="field">
        For (s)
        <input type="number" min={0} value={forS} onChange={(e) => setForS(e.target.value)} />
      </label>
      <button type="submit" className="button" disabled={create.isPending}>
        Create rule
      </button>
      {create.error && (
        <span className="error" role="alert">
          {create.error.message}
        </span>
      )}
    </form>
  );
}

export function RulesPanel() {
  const rules = useAlertRulesQuery();
  const { canWrite } = useAccess();
  if (rules.isPending) return <LoadingState label="Loading alert rules…" />;
  if (rules.error) return <ErrorState what="the alert rules" error={rules.error} onRetry={() => void rules.refetch()} />;
  return (
    <section aria-label="Alert rules">
      {rules.data.rules.length === 0 ? (
        <EmptyState title="No alert rules." />
      ) : (
        <div className="table-wrap">
          <table className="data" aria-label="Alert rules">
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">Severity</th>
                <th scope="col">Condition</th>
                <th scope="col">Origin</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rules.data.rules.map((rule) => (
                <RuleRow key={rule.id} rule={rule} canWrite={canWrite} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>New rule on a series</h2>
      {canWrite ? (
        <NewSeriesRuleForm />
      ) : (
        <p className="muted">Creating, enabling or disabling rules needs the editor role. Latency and burn-rate rules: POST /api/v1/alerts/rules (docs/alerts.md).</p>
      )}
    </section>
  );
}
