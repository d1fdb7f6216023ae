'use client';

import { useState, type FormEvent } from 'react';
import { useAdminAccess, type AdminAccess } from '../hooks/use-admin-status-query';
import { setAdminToken } from './admin-token-store';

const NOTE: Record<AdminAccess, string> = {
  checking: 'Checking whether the server accepts changes…',
  unknown: 'Could not ask the server whether it accepts changes; write actions may fail.',
  disabled:
    'Changes are off: the server was started without INFERWATCH_ADMIN_TOKEN. Restart it with INFERWATCH_ADMIN_TOKEN set to a long random value (e.g. `openssl rand -hex 32`) and paste that value here.',
  missing: 'Paste the admin token (the server’s INFERWATCH_ADMIN_TOKEN) to acknowledge, silence or change anything.',
  rejected: 'The server rejected this token. Paste the value of INFERWATCH_ADMIN_TOKEN the server was started with.',
  accepted: 'Admin token accepted: write actions are on in this tab. It is kept in this tab’s session storage only.',
};

/** Where the operator pastes the admin token; every write action of the dashboard sends it as a bearer token. */
export function AdminTokenField({ compact = false }: { compact?: boolean }) {
  const { access, token } = useAdminAccess();
  const [draft, setDraft] = useState('');
  const [editing, setEditing] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setAdminToken(draft);
    setDraft('');
    setEditing(false);
  };
  const showForm = access !== 'disabled' && (access !== 'accepted' || editing || !compact);
  return (
    <section className={`panel admin-token admin-${access}`} aria-label="Admin token" data-admin-access={access}>
      <p className={access === 'rejected' || access === 'disabled' ? 'error' : 'muted'} role="status">
        {NOTE[access]}
      </p>
      {showForm && (
        <form className="inline-form" onSubmit={submit}>
          <label className="field">
            Admin token
            <input
              type="password"
              autoComplete="off"
              spellCheck={false}
              value={draft}
              onChange={(event) => setDraft(event.target.value)}
              placeholder={token ? 'paste a different token' : 'INFERWATCH_ADMIN_TOKEN'}
            />
          </label>
          <button type="submit" className="button" disabled={draft.trim() === ''}>
            Use token
          </button>
          {token && (
            <button type="button" className="button" onClick={() => setAdminToken(null)}>
              Forget token
            </button>
          )}
        </form>
      )}
      {!showForm && access === 'accepted' && (
        <p className="inline-form">
          <button type="button" className="button" onClick={() => setEditing(true)}>
            Change token
          </button>
          <button type="button" className="button" onClick={() => setAdminToken(null)}>
            Forget token
          </button>
        </p>
      )}
    </section>
  );
}
