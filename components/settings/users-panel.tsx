'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { CreatedUser, UserPatch, UserView } from '@/lib/protocol/auth';
import { ROLES, type Role } from '@/lib/protocol/roles';
import { useAccess } from '../hooks/use-session-query';
import { USERS_QUERY_KEY, useUsersQuery } from '../hooks/use-users-query';
import { sendJson } from '../send-json';
import { EmptyState, ErrorState, LoadingState } from '../states';
import { LocalTime } from '../time/local-time';
import { CopyButton } from './copy-button';

type SignInWith = 'generated' | 'typed' | 'sso';

/** A password the server generated, shown this once. */
function GeneratedPasswordPanel({ created, onDismiss }: { created: CreatedUser; onDismiss: () => void }) {
  return (
    <section className="panel new-key" aria-label={`Password of ${created.email}`} data-testid="generated-password">
      <h3>
        Password of <span className="subject">{created.email}</span> — shown only now
      </h3>
      <pre className="command">
        <code data-testid="generated-password-value">{created.generatedPassword}</code>
      </pre>
      <CopyButton text={created.generatedPassword!} label="Copy password" />
      <p className="muted">Give it to them over a safe channel; they change it under Settings after signing in.</p>
      <button type="button" className="button" onClick={onDismiss}>
        Done, hide the password
      </button>
    </section>
  );
}

function CreateUserForm() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [signInWith, setSignInWith] = useState<SignInWith>('generated');
  const [password, setPassword] = useState('');
  const [created, setCreated] = useState<CreatedUser | null>(null);
  const create = useMutation({
    mutationFn: (body: object) => sendJson<CreatedUser>('/api/v1/admin/users', { method: 'POST', body: JSON.stringify(body) }),
    onSuccess: (user) => {
      setEmail('');
      setName('');
      setPassword('');
      setCreated(user.generatedPassword ? user : null);
      void queryClient.invalidateQueries({ queryKey: USERS_QUERY_KEY });
      void queryClient.invalidateQueries({ queryKey: ['audit'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const secret = signInWith === 'generated' ? { generatePassword: true } : signInWith === 'typed' ? { password } : {};
    create.mutate({ email: email.trim(), name: name.trim(), role, ...secret });
  };
  return (
    <>
      <form className="filters" aria-label="Create a user" onSubmit={submit}>
        <label className="field">
          Email
          <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} placeholder="ana@example.com" />
        </label>
        <label className="field">
          Name
          <input type="text" maxLength={200} value={name} onChange={(e) => setName(e.target.value)} placeholder="Ana" />
        </label>
        <label className="field">
          Role
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          Signs in with
          <select value={signInWith} onChange={(e) => setSignInWith(e.target.value as SignInWith)}>
            <option value="generated">a generated password (shown once)</option>
            <option value="typed">a password I type</option>
            <option value="sso">SSO only</option>
          </select>
        </label>
        {signInWith === 'typed' && (
          <label className="field">
            Password
            <input type="password" autoComplete="new-password" required minLength={12} value={password} onChange={(e) => setPassword(e.target.value)} />
          </label>
        )}
        <button type="submit" className="button" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create user'}
        </button>
        {create.error && (
          <p className="error" role="alert">
            Could not create the user: {create.error.message}
          </p>
        )}
      </form>
      {created && <GeneratedPasswordPanel created={created} onDismiss={() => setCreated(null)} />}
    </>
  );
}

function useUpdateUser(user: UserView) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (patch: UserPatch) => sendJson<UserView>(`/api/v1/admin/users/${user.id}`, { method: 'PATCH', body: JSON.stringify(patch) }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: USERS_QUERY_KEY });
      void queryClient.invalidateQueries({ queryKey: ['audit'] });
    },
  });
}

function RoleSelect({ user }: { user: UserView }) {
  const update = useUpdateUser(user);
  return (
    <span className="inline-form">
      <select aria-label={`Role of ${user.email}`} value={user.role} disabled={update.isPending} onChange={(e) => update.mutate({ role: e.target.value as Role })}>
        {ROLES.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      {update.error && (
        <span className="error" role="alert">
          {update.error.message}
        </span>
      )}
    </span>
  );
}

function AccessButton({ user }: { user: UserView }) {
  const update = useUpdateUser(user);
  const [confirming, setConfirming] = useState(false);
  const disabled = user.disabledAt !== null;
  const error = update.error && (
    <span className="error" role="alert">
      {update.error.message}
    </span>
  );
  if (disabled)
    return (
      <span className="inline-form">
        <button type="button" className="button" disabled={update.isPending} onClick={() => update.mutate({ disabled: false })}>
          Enable
        </button>
        {error}
      </span>
    );
  if (!confirming)
    return (
      <button type="button" className="button" onClick={() => setConfirming(true)}>
        Disable
      </button>
    );
  return (
    <span className="inline-form">
      <span>Disable? Their sessions and API tokens stop working at once.</span>
      <button type="button" className="button danger" disabled={update.isPending} onClick={() => update.mutate({ disabled: true }, { onSuccess: () => setConfirming(false) })}>
        Yes, disable
      </button>
      <button type="button" className="button" onClick={() => setConfirming(false)}>
        Keep
      </button>
      {error}
    </span>
  );
}

function UsersTable({ users }: { users: UserView[] }) {
  return (
    <div className="table-wrap">
      <table className="data" aria-label="Users">
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Signs in with</th>
            <th scope="col">Created</th>
            <th scope="col">State</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {users.map((user) => (
            <tr key={user.id} data-user-email={user.email}>
              <th scope="row">{user.email}</th>
              <td>{user.name}</td>
              <td>
                <RoleSelect user={user} />
              </td>
              <td>{[user.password && 'password', user.sso && 'SSO'].filter(Boolean).join(', ') || <span className="muted">nothing yet</span>}</td>
              <td>
                <LocalTime iso={user.createdAt} />
              </td>
              <td>
                <span className={`badge ${user.disabledAt ? 'badge-key-revoked' : 'badge-key-active'}`}>{user.disabledAt ? 'disabled' : 'active'}</span>
              </td>
              <td>
                <AccessButton user={user} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Users (admins only): create one, change a role, disable or enable; the server keeps at least one admin. */
export function UsersPanel() {
  const { canAdmin } = useAccess();
  const users = useUsersQuery();
  if (!canAdmin) return null;
  return (
    <section aria-labelledby="users-heading">
      <h2 id="users-heading">Users</h2>
      <p className="muted">
        Viewers read; editors also acknowledge, silence and change thresholds, alert rules and channels; admins also manage users,
        enrollment keys and residency policies. A user without a password signs in through SSO only.
      </p>
      <CreateUserForm />
      {users.isPending ? (
        <LoadingState label="Loading users…" />
      ) : users.error && !users.data ? (
        <ErrorState what="the users" error={users.error} onRetry={() => void users.refetch()} />
      ) : users.data!.users.length === 0 ? (
        <EmptyState title="No users yet.">
          <p className="muted">Create one above; until then, only the local admin (loopback) or the bootstrap token can sign in.</p>
        </EmptyState>
      ) : (
        <UsersTable users={users.data!.users} />
      )}
    </section>
  );
}
