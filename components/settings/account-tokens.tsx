'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ApiTokenView, CreatedApiToken, PrincipalKind, PrincipalView } from '@/lib/protocol/auth';
import { ConfirmRevoke } from '../confirm-revoke';
import { API_TOKENS_QUERY_KEY, useApiTokensQuery } from '../hooks/use-api-tokens-query';
import { useNow } from '../hooks/use-now';
import { useSessionQuery } from '../hooks/use-session-query';
import { sendJson } from '../send-json';
import { EmptyState, ErrorState, LoadingState } from '../states';
import { LocalTime } from '../time/local-time';
import { ChangePassword } from './change-password';
import { CreateTokenForm, NewTokenPanel } from './new-api-token';

const NOT_A_USER: Record<Exclude<PrincipalKind, 'user'>, string> = {
  local: 'This browser is the local admin because the server listens on loopback only; it has no tokens of its own.',
  bootstrap: 'The bootstrap admin token stands for no user.',
  token: 'This request acts with an API token; its user manages tokens after signing in.',
};

function tokenState(token: ApiTokenView, nowMs: number): 'revoked' | 'expired' | 'active' {
  if (token.revokedAt) return 'revoked';
  if (token.expiresAt && Date.parse(token.expiresAt) <= nowMs) return 'expired';
  return 'active';
}

function RevokeTokenButton({ token }: { token: ApiTokenView }) {
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: () => sendJson<ApiTokenView>(`/api/v1/auth/tokens/${token.id}`, { method: 'DELETE' }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: API_TOKENS_QUERY_KEY }),
  });
  return (
    <ConfirmRevoke
      label="Revoke"
      consequence="Revoke? Whatever sends it gets 401 from now on."
      pending={revoke.isPending}
      error={revoke.error}
      onConfirm={() => revoke.mutateAsync()}
    />
  );
}

function TokensTable({ tokens }: { tokens: ApiTokenView[] }) {
  const nowMs = useNow(10_000);
  const optionalTime = (iso: string | null, none: string) => (iso ? <LocalTime iso={iso} /> : <span className="muted">{none}</span>);
  return (
    <div className="table-wrap">
      <table className="data" aria-label="API tokens">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Token starts</th>
            <th scope="col">Role</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">State</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((token) => {
            const state = tokenState(token, nowMs);
            return (
              <tr key={token.id} data-token-name={token.name}>
                <th scope="row">{token.name}</th>
                <td>
                  <code>{token.tokenPrefix}…</code>
                </td>
                <td>{token.role}</td>
                <td>
                  <LocalTime iso={token.createdAt} />
                </td>
                <td>{optionalTime(token.lastUsedAt, 'never')}</td>
                <td>{optionalTime(token.expiresAt, 'never')}</td>
                <td>
                  <span className={`badge badge-key-${state}`}>{state}</span>
                </td>
                <td>{state === 'active' && <RevokeTokenButton token={token} />}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function UserTokens({ principal }: { principal: PrincipalView }) {
  const tokens = useApiTokensQuery();
  const [created, setCreated] = useState<CreatedApiToken | null>(null);
  return (
    <>
      <CreateTokenForm userRole={principal.role} onCreated={setCreated} />
      {created && <NewTokenPanel created={created} onDismiss={() => setCreated(null)} />}
      {tokens.isPending ? (
        <LoadingState label="Loading your API tokens…" />
      ) : tokens.error && !tokens.data ? (
        <ErrorState what="your API tokens" error={tokens.error} onRetry={() => void tokens.refetch()} />
      ) : tokens.data!.tokens.length === 0 ? (
        <EmptyState title="No API tokens yet.">
          <p className="muted">Create one above for a script, Grafana or Prometheus.</p>
        </EmptyState>
      ) : (
        <TokensTable tokens={tokens.data!.tokens} />
      )}
    </>
  );
}

/** Who this browser is signed in as, and that user's API tokens: create one (shown once), list them, revoke one. */
export function AccountTokens() {
  const session = useSessionQuery();
  const principal = session.data?.principal;
  return (
    <section aria-labelledby="account-heading" data-testid="account">
      <h2 id="account-heading">Your account &amp; API tokens</h2>
      {session.isPending ? (
        <LoadingState label="Loading your account…" />
      ) : session.error && !session.data ? (
        <ErrorState what="your account" error={session.error} onRetry={() => void session.refetch()} />
      ) : !principal ? (
        <EmptyState title="Not signed in." />
      ) : (
        <>
          <p>
            Signed in as <strong>{principal.name}</strong>
            {principal.email && principal.email !== principal.name ? ` (${principal.email})` : ''}, role <strong data-testid="account-role">{principal.role}</strong>.
          </p>
          {principal.kind === 'user' ? (
            <>
              <h3>Password</h3>
              <p className="muted">At least 12 characters. Changing it signs you out everywhere else. A user who signs in through SSO changes it with the identity provider.</p>
              <ChangePassword />
              <h3>API tokens</h3>
              <UserTokens principal={principal} />
            </>
          ) : (
            <EmptyState title="API tokens belong to users.">
              <p className="muted">
                {NOT_A_USER[principal.kind]}{' '}
                {principal.role === 'admin' ? (
                  <>
                    Create the first admin under <a href="#users-heading">Users</a> below (a password is generated and shown once), sign in as
                    that user, and make tokens here.
                  </>
                ) : (
                  'Sign in as a user to make tokens here.'
                )}
              </p>
            </EmptyState>
          )}
        </>
      )}
    </section>
  );
}
