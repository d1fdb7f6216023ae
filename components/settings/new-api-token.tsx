'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { CreatedApiToken } from '@/lib/protocol/auth';
import { ROLES, type Role } from '@/lib/protocol/roles';
import { API_TOKENS_QUERY_KEY } from '../hooks/use-api-tokens-query';
import { sendJson } from '../send-json';
import { CopyButton } from './copy-button';

const EXPIRY_CHOICES = [
  { label: '30 days', days: 30 },
  { label: '90 days', days: 90 },
  { label: '1 year', days: 365 },
  { label: 'never', days: null },
] as const;

export function CreateTokenForm({ userRole, onCreated }: { userRole: Role; onCreated: (token: CreatedApiToken) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [expiryDays, setExpiryDays] = useState('90');
  const create = useMutation({
    mutationFn: (body: object) => sendJson<CreatedApiToken>('/api/v1/auth/tokens', { method: 'POST', body: JSON.stringify(body) }),
    onSuccess: (created) => {
      onCreated(created);
      setName('');
      void queryClient.invalidateQueries({ queryKey: API_TOKENS_QUERY_KEY });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ name: name.trim(), role, ...(expiryDays === '' ? {} : { expiresInDays: Number(expiryDays) }) });
  };
  return (
    <form className="filters" aria-label="Create an API token" onSubmit={submit}>
      <label className="field">
        Name
        <input type="text" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder="grafana" />
      </label>
      <label className="field">
        Role
        <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.slice(0, ROLES.indexOf(userRole) + 1).map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        Expires after
        <select value={expiryDays} onChange={(e) => setExpiryDays(e.target.value)}>
          {EXPIRY_CHOICES.map((choice) => (
            <option key={choice.label} value={choice.days === null ? '' : String(choice.days)}>
              {choice.label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="button" disabled={create.isPending || name.trim() === ''}>
        {create.isPending ? 'Creating…' : 'Create token'}
      </button>
      {create.error && (
        <p className="error" role="alert">
          Could not create the token: {create.error.message}
        </p>
      )}
    </form>
  );
}

/** The token just created, shown this once, with how Grafana and Prometheus send it. */
export function NewTokenPanel({ created, onDismiss }: { created: CreatedApiToken; onDismiss: () => void }) {
  const scrape = `authorization:\n  credentials: ${created.token}`;
  return (
    <section className="panel new-key" aria-label={`New API token ${created.name}`} data-testid="new-token">
      <h3>
        Token <span className="subject">{created.name}</span> ({created.role}) — shown only now
      </h3>
      <p className="muted">Only its hash is stored. Copy it now; if it is lost, revoke it and create another.</p>
      <pre className="command">
        <code data-testid="new-token-value">{created.token}</code>
      </pre>
      <CopyButton text={created.token} label="Copy token" />
      <p className="muted">
        Scripts and Grafana send it as <code>Authorization: Bearer {created.token.slice(0, 8)}…</code>; Prometheus scrapes{' '}
        <code>/metrics</code> with it in the job’s scrape config:
      </p>
      <pre className="command wrap">
        <code>{scrape}</code>
      </pre>
      <button type="button" className="button" onClick={onDismiss}>
        Done, hide the token
      </button>
    </section>
  );
}
