import type { ReactNode } from 'react';

/** Loading, empty and error states: each says what is happening and what to do next. */
export function LoadingState({ label }: { label: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <p className="state-title">{title}</p>
      {children}
    </div>
  );
}

export function ErrorState({ what, error, onRetry }: { what: string; error: Error; onRetry?: () => void }) {
  return (
    <div className="state state-error" role="alert">
      <p className="state-title">Could not load {what}.</p>
      <p className="muted">{error.message}</p>
      <p className="muted">
        The server may be restarting or its database unreachable: check <a href="/api/health">/api/health</a>.
        {onRetry ? ' ' : ''}
        {onRetry && (
          <button type="button" className="button" onClick={onRetry}>
            Try again
          </button>
        )}
      </p>
    </div>
  );
}
