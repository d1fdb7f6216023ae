'use client';

import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSessionQuery } from '../hooks/use-session-query';
import { sendJson } from '../send-json';

/** Where to go after signing in: a path on this server only, never another site (an open redirect). */
function nextPath(): string {
  const next = new URLSearchParams(window.location.search).get('next') ?? '/';
  return next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

/** `ssoError`: why the last SSO sign-in was refused (the callback sends the browser back to /login?sso_error=…). */
export function LoginForm({ ssoError }: { ssoError?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  // Known only once the browser asked the server, so the link (which reads window.location) never renders on the server.
  const sso = useSessionQuery().data?.sso === true;
  const signIn = useMutation({
    mutationFn: () => sendJson<void>('/api/v1/auth/login', { method: 'POST', body: JSON.stringify({ email, password }) }),
    onSuccess: () => window.location.assign(nextPath()),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  return (
    <form className="panel login-form" onSubmit={submit} aria-label="Sign in">
      <label className="field">
        Email
        <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <label className="field">
        Password
        <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      {ssoError && !signIn.error && (
        <p className="error" role="alert">
          {ssoError}
        </p>
      )}
      {signIn.error && (
        <p className="error" role="alert">
          {signIn.error.message}
        </p>
      )}
      <button type="submit" className="button" disabled={signIn.isPending}>
        Sign in
      </button>
      {sso && (
        <a className="button" href={`/api/v1/auth/oidc/start?next=${encodeURIComponent(nextPath())}`}>
          Sign in with SSO
        </a>
      )}
    </form>
  );
}
