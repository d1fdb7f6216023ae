'use client';

import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { formatWait } from '@/lib/protocol/duration';
import { ApiError } from '../fetch-json';
import { useNow } from '../hooks/use-now';
import { useSessionQuery } from '../hooks/use-session-query';
import { sendJson } from '../send-json';

/** Where to go after signing in: a path on this server only, never another site (an open redirect). */
function nextPath(): string {
  const next = new URLSearchParams(window.location.search).get('next') ?? '/';
  return next.startsWith('/') && !next.startsWith('//') ? next : '/';
}

/** A 429's wait, counted down: "try again in 40 s", then that it may try again. */
function ThrottledNote({ untilMs, message }: { untilMs: number; message: string }) {
  const nowMs = useNow(1000);
  const reason = message.split(';')[0] ?? message;
  return (
    <p className="error" role="alert" data-testid="sign-in-wait">
      {untilMs > nowMs ? `${reason.charAt(0).toUpperCase()}${reason.slice(1)}: try again in ${formatWait(untilMs - nowMs)}.` : 'You can try again now.'}
    </p>
  );
}

/** `ssoError`: why the last SSO sign-in was refused (the callback sends the browser back to /login?sso_error=…). */
export function LoginForm({ ssoError }: { ssoError?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [waitUntilMs, setWaitUntilMs] = useState<number | null>(null);
  // Known only once the browser asked the server, so the link (which reads window.location) never renders on the server.
  const sso = useSessionQuery().data?.sso === true;
  const signIn = useMutation({
    mutationFn: () => sendJson<void>('/api/v1/auth/login', { method: 'POST', body: JSON.stringify({ email, password }) }),
    onSuccess: () => window.location.assign(nextPath()),
    onError: (err) => setWaitUntilMs(err instanceof ApiError && err.retryAfterS !== null ? Date.now() + err.retryAfterS * 1000 : null),
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
      {signIn.error &&
        (waitUntilMs !== null ? (
          <ThrottledNote untilMs={waitUntilMs} message={signIn.error.message} />
        ) : (
          <p className="error" role="alert">
            {signIn.error.message}
          </p>
        ))}
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
