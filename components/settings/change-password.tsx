'use client';

import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { PasswordChangeInput } from '@/lib/protocol/auth';
import { sendJson } from '../send-json';

/** The signed-in user's own password: the current one, the new one twice; the server ends their other sessions. */
export function ChangePassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const change = useMutation({
    mutationFn: (body: PasswordChangeInput) => sendJson<void>('/api/v1/auth/password', { method: 'POST', body: JSON.stringify(body) }),
    onSuccess: () => {
      setCurrent('');
      setNext('');
      setRepeat('');
    },
  });
  const mismatch = repeat !== '' && repeat !== next;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!mismatch) change.mutate({ currentPassword: current, newPassword: next });
  };
  return (
    <form className="filters" aria-label="Change your password" onSubmit={submit}>
      <label className="field">
        Current password
        <input type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
      </label>
      <label className="field">
        New password
        <input type="password" autoComplete="new-password" required minLength={12} maxLength={1024} value={next} onChange={(e) => setNext(e.target.value)} />
      </label>
      <label className="field">
        New password again
        <input type="password" autoComplete="new-password" required value={repeat} onChange={(e) => setRepeat(e.target.value)} aria-invalid={mismatch} />
      </label>
      <button type="submit" className="button" disabled={change.isPending || mismatch}>
        {change.isPending ? 'Changing…' : 'Change password'}
      </button>
      {mismatch && <p className="error">The two new passwords differ.</p>}
      {change.error && (
        <p className="error" role="alert">
          Could not change the password: {change.error.message}
        </p>
      )}
      {change.isSuccess && (
        <p role="status" data-testid="password-changed">
          Password changed. Your other sessions were signed out; this one stays.
        </p>
      )}
    </form>
  );
}
