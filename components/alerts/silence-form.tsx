'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { LabelMatcher, Silence } from '@/lib/protocol/alerts';
import { sendJson } from '../send-json';

const OPERATORS = [
  { op: '=', isRegex: false, isEqual: true },
  { op: '!=', isRegex: false, isEqual: false },
  { op: '=~', isRegex: true, isEqual: true },
  { op: '!~', isRegex: true, isEqual: false },
] as const;

const DURATIONS = [
  { label: '1 hour', ms: 3_600_000 },
  { label: '4 hours', ms: 4 * 3_600_000 },
  { label: '1 day', ms: 86_400_000 },
  { label: '7 days', ms: 7 * 86_400_000 },
] as const;

const opOf = (m: LabelMatcher) => OPERATORS.find((o) => o.isRegex === m.isRegex && o.isEqual === (m.isEqual ?? true))!.op;

/** A silence: label matchers (Alertmanager's), how long, and why. Matching alerts still show; they are not notified. */
export function SilenceForm({ initial, onDone }: { initial: LabelMatcher[]; onDone?: () => void }) {
  const queryClient = useQueryClient();
  const [matchers, setMatchers] = useState<LabelMatcher[]>(initial.length ? initial : [{ name: 'alertname', value: '', isRegex: false, isEqual: true }]);
  const [durationMs, setDurationMs] = useState<number>(DURATIONS[1].ms);
  const [comment, setComment] = useState('');
  const [createdBy, setCreatedBy] = useState('');
  const create = useMutation({
    mutationFn: (body: object) => sendJson<Silence>('/api/v1/alerts/silences', { method: 'POST', body: JSON.stringify(body) }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['alert-silences'] });
      setComment('');
      onDone?.();
    },
  });
  const update = (i: number, patch: Partial<LabelMatcher>) => setMatchers(matchers.map((m, j) => (j === i ? { ...m, ...patch } : m)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({
      matchers: matchers.filter((m) => m.name.trim()).map((m) => ({ ...m, name: m.name.trim() })),
      endsAt: new Date(Date.now() + durationMs).toISOString(),
      comment: comment.trim(),
      createdBy: createdBy.trim(),
    });
  };
  return (
    <form className="panel silence-form" aria-label="New silence" onSubmit={submit}>
      <fieldset className="field bare">
        <legend>Silence alerts whose labels match all of</legend>
        {matchers.map((m, i) => (
          <div key={i} className="inline-form">
            <input type="text" aria-label={`Matcher ${i + 1} label`} value={m.name} onChange={(e) => update(i, { name: e.target.value })} placeholder="label" size={12} />
            <select
              aria-label={`Matcher ${i + 1} operator`}
              value={opOf(m)}
              onChange={(e) => {
                const o = OPERATORS.find((x) => x.op === e.target.value)!;
                update(i, { isRegex: o.isRegex, isEqual: o.isEqual });
              }}
            >
              {OPERATORS.map((o) => (
                <option key={o.op} value={o.op}>
                  {o.op}
                </option>
              ))}
            </select>
            <input type="text" aria-label={`Matcher ${i + 1} value`} value={m.value} onChange={(e) => update(i, { value: e.target.value })} placeholder="value" />
            <button type="button" className="button" aria-label={`Remove matcher ${i + 1}`} disabled={matchers.length === 1} onClick={() => setMatchers(matchers.filter((_, j) => j !== i))}>
              ✕
            </button>
          </div>
        ))}
        <button type="button" className="button" onClick={() => setMatchers([...matchers, { name: '', value: '', isRegex: false, isEqual: true }])}>
          Add matcher
        </button>
      </fieldset>
      <div className="inline-form">
        <label className="field">
          For
          <select value={durationMs} onChange={(e) => setDurationMs(Number(e.target.value))}>
            {DURATIONS.map((d) => (
              <option key={d.ms} value={d.ms}>
                {d.label}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          Why
          <input type="text" required value={comment} onChange={(e) => setComment(e.target.value)} placeholder="migrating the VM, ticket #42" />
        </label>
        <label className="field">
          Who
          <input type="text" required value={createdBy} onChange={(e) => setCreatedBy(e.target.value)} placeholder="your name" />
        </label>
        <button type="submit" className="button" disabled={create.isPending}>
          Create silence
        </button>
        {onDone && (
          <button type="button" className="button" onClick={onDone}>
            Cancel
          </button>
        )}
      </div>
      {create.error && (
        <p className="error" role="alert">
          Could not create the silence: {create.error.message}
        </p>
      )}
    </form>
  );
}
