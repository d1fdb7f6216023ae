'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { SESSION_QUERY_KEY, useSessionQuery } from '../hooks/use-session-query';
import { sendJson } from '../send-json';

/** Who this browser is signed in as, in the top bar, with sign-out; local sign-in says why nobody signed in. */
export function SessionMenu() {
  const session = useSessionQuery();
  const queryClient = useQueryClient();
  const signOut = useMutation({
    mutationFn: () => sendJson<void>('/api/v1/auth/logout', { method: 'POST' }),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: SESSION_QUERY_KEY });
      window.location.assign('/login');
    },
  });
  const principal = session.data?.principal;
  if (session.isPending) return null;
  if (!principal) {
    return (
      <Link className="session-menu button" href="/login">
        Sign in
      </Link>
    );
  }
  const why = principal.kind === 'local' ? 'inferwatch listens on loopback only, so whoever reaches it is signed in as the local admin' : undefined;
  return (
    <div className="session-menu" data-testid="session-menu" data-role={principal.role} title={why}>
      <span>
        {principal.name} · {principal.role}
      </span>
      {principal.kind === 'user' && (
        <button type="button" className="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          Sign out
        </button>
      )}
    </div>
  );
}
