'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { THRESHOLD_SCOPES, type FindingRuleDescription, type ThresholdOverride, type ThresholdScope } from '@/lib/protocol/findings';
import { thresholdOverridesKey, useThresholdOverridesQuery } from '../hooks/use-threshold-overrides-query';
import { sendJson } from '../send-json';
import { parseLabelsText } from '../settings/install-command';
import { LocalTime } from '../time/local-time';

const SCOPE_HINT: Record<ThresholdScope, string> = {
  fleet: 'every host',
  region: 'region name, e.g. oslo',
  labels: 'labels, e.g. team=ml, env=prod',
  host: 'host id (the number in /hosts/…)',
};

function selectorText(override: ThresholdOverride): string {
  if (override.scope === 'fleet') return 'whole fleet';
  if (override.scope === 'labels') {
    try {
      return Object.entries(JSON.parse(override.selector) as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(', ');
    } catch {
      return override.selector;
    }
  }
  return override.scope === 'host' ? `host #${override.selector}` : override.selector;
}

function scopeInput(scope: ThresholdScope, selector: string): { value: object } | { error: string } {
  const text = selector.trim();
  if (scope === 'fleet') return { value: { scope } };
  if (!text) return { error: `Give the ${scope} this applies to.` };
  if (scope === 'region') return { value: { scope, region: text } };
  if (scope === 'host') {
    const hostId = Number(text);
    return Number.isInteger(hostId) && hostId > 0 ? { value: { scope, hostId } } : { error: 'A host id is a positive whole number.' };
  }
  const labels = parseLabelsText(text);
  return 'error' in labels ? labels : { value: { scope, labels: labels.labels } };
}

function OverrideForm({ rule }: { rule: FindingRuleDescription }) {
  const queryClient = useQueryClient();
  const [scope, setScope] = useState<ThresholdScope>('region');
  const [selector, setSelector] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [disabled, setDisabled] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (body: object) => sendJson<ThresholdOverride>('/api/v1/findings/thresholds', { method: 'PUT', body: JSON.stringify(body) }),
    onSuccess: () => {
      setValues({});
      setSelector('');
      void queryClient.invalidateQueries({ queryKey: thresholdOverridesKey });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const target = scopeInput(scope, selector);
    if ('error' in target) return setFormError(target.error);
    const thresholds: Record<string, number> = {};
    for (const [name, text] of Object.entries(values)) {
      if (text.trim() === '') continue;
      const value = Number(text);
      if (!Number.isFinite(value)) return setFormError(`${name} must be a number.`);
      thresholds[name] = value;
    }
    setFormError(null);
    save.mutate({ ...target.value, ruleId: rule.id, thresholds, disabled });
  };
  return (
    <form className="filters" aria-label={`Override thresholds of ${rule.id}`} onSubmit={submit}>
      <label className="field">
        Applies to
        <select value={scope} onChange={(e) => setScope(e.target.value as ThresholdScope)}>
          {THRESHOLD_SCOPES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      {scope !== 'fleet' && (
        <label className="field">
          Which
          <input type="text" value={selector} onChange={(e) => setSelector(e.target.value)} placeholder={SCOPE_HINT[scope]} />
        </label>
      )}
      {rule.thresholds.map((t) => (
        <label key={t.name} className="field">
          {t.name} ({t.unit || 'value'})
          <input
            type="text"
            inputMode="decimal"
            size={8}
            value={values[t.name] ?? ''}
            placeholder={String(t.value)}
            onChange={(e) => setValues({ ...values, [t.name]: e.target.value })}
          />
        </label>
      ))}
      <label className="field checkbox">
        <span>
          <input type="checkbox" checked={disabled} onChange={(e) => setDisabled(e.target.checked)} /> turn the rule off here
        </span>
      </label>
      <button type="submit" className="button" disabled={save.isPending}>
        Save override
      </button>
      {(formError ?? save.error?.message) && (
        <span className="error" role="alert">
          {formError ?? save.error?.message}
        </span>
      )}
    </form>
  );
}

function DeleteOverrideButton({ override }: { override: ThresholdOverride }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => sendJson<void>(`/api/v1/findings/thresholds/${override.id}`, { method: 'DELETE' }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: thresholdOverridesKey }),
  });
  return (
    <>
      <button type="button" className="button" disabled={remove.isPending} onClick={() => remove.mutate()}>
        Remove
      </button>
      {remove.error && <span className="error">{remove.error.message}</span>}
    </>
  );
}

/** The rule's default thresholds and the overrides in force (fleet → region → labels → host), editable by editors. */
export function ThresholdsPanel({ rule, canWrite }: { rule: FindingRuleDescription; canWrite: boolean }) {
  const overrides = useThresholdOverridesQuery();
  const mine = overrides.data?.overrides.filter((o) => o.ruleId === rule.id) ?? [];
  return (
    <section className="thresholds" aria-label={`Thresholds of ${rule.id}`}>
      <h4>Thresholds</h4>
      {rule.thresholds.length === 0 ? (
        <p className="muted">This rule has no thresholds; an override can only turn it off for a region, labels or a host.</p>
      ) : (
        <div className="table-wrap">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col" className="num">
                  Default
                </th>
                <th scope="col">Meaning</th>
              </tr>
            </thead>
            <tbody>
              {rule.thresholds.map((t) => (
                <tr key={t.name}>
                  <th scope="row">
                    <code>{t.name}</code>
                  </th>
                  <td className="num">
                    {t.value} {t.unit}
                  </td>
                  <td>{t.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h4>Overrides</h4>
      {overrides.error && <p className="error">Could not load the overrides: {overrides.error.message}</p>}
      {mine.length === 0 ? (
        <p className="muted">None: the defaults apply everywhere. A more specific override (host over labels over region over fleet) wins.</p>
      ) : (
        <div className="table-wrap">
          <table className="data" aria-label={`Overrides of ${rule.id}`}>
            <thead>
              <tr>
                <th scope="col">Scope</th>
                <th scope="col">Applies to</th>
                <th scope="col">Values</th>
                <th scope="col">Changed</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {mine.map((o) => (
                <tr key={o.id} data-override-id={o.id}>
                  <td>{o.scope}</td>
                  <td>{selectorText(o)}</td>
                  <td>
                    {o.disabled
                      ? 'rule off'
                      : Object.entries(o.thresholds)
                          .map(([k, v]) => `${k} = ${v}`)
                          .join(', ') || 'defaults'}
                  </td>
                  <td>
                    <LocalTime iso={o.updatedAt} />
                  </td>
                  <td>{canWrite && <DeleteOverrideButton override={o} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canWrite ? <OverrideForm rule={rule} /> : <p className="muted">Changing thresholds needs the editor role.</p>}
    </section>
  );
}
