'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { Finding } from '@/lib/protocol/findings';
import { sendJson } from '../send-json';

export const ACK_DURATIONS = [
  { label: '1 day', days: 1 },
  { label: '7 days', days: 7 },
  { label: '30 days', days: 30 },
  { label: 'until cleared', days: null },
] as const;

function useInvalidateFindings() {
  const queryClient = useQueryClient();
  return () => {
    void queryClient.invalidateQueries({ queryKey: ['findings'] });
    void queryClient.invalidateQueries({ queryKey: ['findings-summary'] });
  };
}

/** Acknowledge with a reason and an expiry: the finding stays listed, marked, until the expiry or until it resolves. */
export function AcknowledgeForm({ finding, onDone }: { finding: Finding; onDone: () => void }) {
  const invalidate = useInvalidateFindings();
  const [reason, setReason] = useState('');
  const [days, setDays] = useState('7');
  const acknowledge = useMutation({
    mutationFn: (body: { reason: string; expiresAt?: string }) =>
      sendJson<Finding>(`/api/v1/findings/${finding.id}/acknowledgement`, { method: 'PUT', body: JSON.stringify(body) }),
    onSuccess: () => {
      invalidate();
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const expiresAt = days === '' ? undefined : new Date(Date.now() + Number(days) * 86_400_000).toISOString();
    acknowledge.mutate({ reason: reason.trim(), ...(expiresAt ? { expiresAt } : {}) });
  };
  return (
    <form className="inline-form" aria-label="Acknowledge finding" onSubmit={submit}>
      <label className="field">
        Why is this known and accepted?
        <input type="text" required maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} placeholder="provider ticket #123" autoFocus />
      </label>
      <label className="field">
        For
        <select value={days} onChange={(e) => setDays(e.target.value)}>
          {ACK_DURATIONS.map((d) => (
            <option key={d.label} value={d.days === null ? '' : String(d.days)}>
              {d.label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="button" disabled={acknowledge.isPending || reason.trim() === ''}>
        Acknowledge
      </button>
      <button type="button" className="button" onClick={onDone}>
        Cancel
      </button>
      {acknowledge.error && (
        <span className="error" role="alert">
          {acknowledge.error.message}
        </span>
      )}
    </form>
  );
}

export function ClearAcknowledgementButton({ finding }: { finding: Finding }) {
  const invalidate = useInvalidateFindings();
  const clear = useMutation({
    mutationFn: () => sendJson<Finding>(`/api/v1/findings/${finding.id}/acknowledgement`, { method: 'DELETE' }),
    onSuccess: invalidate,
  });
  return (
    <>
      <button type="button" className="button" disabled={clear.isPending} onClick={() => clear.mutate()}>
        Clear acknowledgement
      </button>
      {clear.error && <span className="error">{clear.error.message}</span>}
    </>
  );
}
