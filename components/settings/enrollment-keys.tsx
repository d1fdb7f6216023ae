'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useQueryStates } from 'nuqs';
import { useState, type FormEvent } from 'react';
import type { CreatedEnrollmentKeyView, EnrollmentKeyView } from '@/lib/protocol/admin';
import { ConfirmRevoke } from '../confirm-revoke';
import { useAccess } from '../hooks/use-session-query';
import { useEnrollmentKeysQuery } from '../hooks/use-enrollment-keys-query';
import { useIsClient } from '../hooks/use-is-client';
import { useNow } from '../hooks/use-now';
import { EmptyState, ErrorState, LoadingState } from '../states';
import { LocalTime } from '../time/local-time';
import { sendJson } from '../send-json';
import { isLoopbackOrigin, parseLabelsText } from './install-command';
import { NewKeyPanel } from './new-key-panel';
import { settingsSearchParams } from './search-params';

const EXPIRY_CHOICES = [
  { label: 'never', days: null },
  { label: '1 day', days: 1 },
  { label: '7 days', days: 7 },
  { label: '30 days', days: 30 },
  { label: '90 days', days: 90 },
] as const;

function keyState(key: EnrollmentKeyView, nowMs: number): 'revoked' | 'expired' | 'active' {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && Date.parse(key.expiresAt) <= nowMs) return 'expired';
  return 'active';
}

function CreateKeyForm({ onCreated }: { onCreated: (key: CreatedEnrollmentKeyView) => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [region, setRegion] = useState('');
  const [labelsText, setLabelsText] = useState('');
  const [expiryDays, setExpiryDays] = useState<string>('30');
  const labels = parseLabelsText(labelsText);
  const create = useMutation({
    mutationFn: (body: object) => sendJson<CreatedEnrollmentKeyView>('/api/v1/admin/enrollment-keys', { method: 'POST', body: JSON.stringify(body) }),
    onSuccess: (created) => {
      onCreated(created);
      setName('');
      void queryClient.invalidateQueries({ queryKey: ['enrollment-keys'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if ('error' in labels) return;
    const days = expiryDays === '' ? null : Number(expiryDays);
    create.mutate({
      name: name.trim(),
      region: region.trim(),
      labels: labels.labels,
      expiresAt: days === null ? null : new Date(Date.now() + days * 86_400_000).toISOString(),
    });
  };
  return (
    <form className="filters" aria-label="Create an enrollment key" onSubmit={submit}>
      <label className="field">
        Name
        <input type="text" required value={name} onChange={(e) => setName(e.target.value)} placeholder="oslo-prod" />
      </label>
      <label className="field">
        Region
        <input type="text" required value={region} onChange={(e) => setRegion(e.target.value)} placeholder="oslo" pattern="[A-Za-z0-9_.\-]+" title="letters, digits, _ . -" />
      </label>
      <label className="field">
        Labels
        <input
          type="text"
          value={labelsText}
          onChange={(e) => setLabelsText(e.target.value)}
          placeholder="team=ml, env=prod"
          aria-invalid={'error' in labels}
          aria-describedby={'error' in labels ? 'key-labels-error' : undefined}
        />
        {'error' in labels && (
          <span id="key-labels-error" className="error">
            {labels.error}
          </span>
        )}
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
      <button type="submit" className="button" disabled={create.isPending || 'error' in labels}>
        {create.isPending ? 'Creating…' : 'Create key'}
      </button>
      {create.error && (
        <p className="error" role="alert">
          Could not create the key: {create.error.message}
        </p>
      )}
    </form>
  );
}

function RevokeButton({ keyView }: { keyView: EnrollmentKeyView }) {
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => sendJson<EnrollmentKeyView>(`/api/v1/admin/enrollment-keys/${keyView.id}`, { method: 'DELETE' }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ['enrollment-keys'] }),
  });
  return (
    <ConfirmRevoke
      label="Revoke"
      consequence="Revoke? Hosts already enrolled keep reporting; new ones cannot enroll with it."
      pending={revoke.isPending}
      error={revoke.error}
      onConfirm={() => revoke.mutateAsync()}
    />
  );
}

function KeysTable({ keys }: { keys: EnrollmentKeyView[] }) {
  const nowMs = useNow(10_000);
  return (
    <div className="table-wrap">
      <table className="data" aria-label="Enrollment keys">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key starts</th>
            <th scope="col">Region</th>
            <th scope="col">Labels</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">State</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => {
            const state = keyState(key, nowMs);
            return (
              <tr key={key.id} data-key-name={key.name}>
                <th scope="row">{key.name}</th>
                <td>
                  <code>{key.tokenPrefix}…</code>
                </td>
                <td>{key.region}</td>
                <td>
                  <span className="labels">
                    {Object.entries(key.labels).map(([k, v]) => (
                      <span key={k} className="label">{`${k}=${v}`}</span>
                    ))}
                  </span>
                </td>
                <td>
                  <LocalTime iso={key.createdAt} />
                </td>
                <td>{key.expiresAt ? <LocalTime iso={key.expiresAt} /> : <span className="muted">never</span>}</td>
                <td>
                  <span className={`badge badge-key-${state}`}>{state}</span>
                </td>
                <td>{state === 'active' && <RevokeButton keyView={key} />}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Enrollment keys: create one (and copy the install line), list them, revoke one. All of it needs the admin role. */
export function EnrollmentKeys() {
  const { canAdmin } = useAccess();
  const keys = useEnrollmentKeysQuery();
  const isClient = useIsClient();
  const [{ server }, setUrl] = useQueryStates(settingsSearchParams, { history: 'replace' });
  const [created, setCreated] = useState<CreatedEnrollmentKeyView | null>(null);
  const origin = isClient ? window.location.origin : '';
  const serverUrl = server ?? origin;

  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">Enrollment keys</h2>
      <p className="muted">
        A host’s agent trades an enrollment key for its own host token on first contact; the key sets the host’s region and
        labels. One key can enroll many hosts until it expires or is revoked.
      </p>
      <label className="field server-url">
        Server address the agents reach
        <input type="text" value={serverUrl} onChange={(e) => void setUrl({ server: e.target.value && e.target.value !== origin ? e.target.value : null })} />
      </label>
      {isClient && isLoopbackOrigin(serverUrl) && (
        <p className="muted" data-testid="loopback-note">
          This address is loopback: only this machine reaches it. The server binds 127.0.0.1 unless started with HOST=0.0.0.0
          (or put behind a proxy); write here the address your hosts reach it at.
        </p>
      )}
      {canAdmin ? (
        <>
          <CreateKeyForm onCreated={setCreated} />
          {created && <NewKeyPanel created={created} serverUrl={serverUrl} onDismiss={() => setCreated(null)} />}
          {keys.isPending ? (
            <LoadingState label="Loading enrollment keys…" />
          ) : keys.error && !keys.data ? (
            <ErrorState what="the enrollment keys" error={keys.error} onRetry={() => void keys.refetch()} />
          ) : keys.data!.keys.length === 0 ? (
            <EmptyState title="No enrollment keys yet.">
              <p className="muted">Create one above for the hosts of one region, then run the command it shows on each host.</p>
            </EmptyState>
          ) : (
            <KeysTable keys={keys.data!.keys} />
          )}
        </>
      ) : (
        <EmptyState title="Enrollment keys need the admin role.">
          <p className="muted">Ask an admin to create one. On the server’s machine, <code>npm run admin -- keys create</code> works without signing in.</p>
        </EmptyState>
      )}
    </section>
  );
}
