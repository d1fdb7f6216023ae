'use client';

import { useState } from 'react';

/**
 * A revoke button that asks first: in its place the consequence, "Yes, revoke" and "Keep". It closes once
 * `onConfirm` succeeds; a failure stays open beside `error`.
 */
export function ConfirmRevoke({ label, consequence, pending, error, onConfirm }: {
  label: string;
  consequence: string;
  pending: boolean;
  error?: Error | null;
  onConfirm: () => Promise<unknown>;
}) {
  const [confirming, setConfirming] = useState(false);
  if (!confirming)
    return (
      <button type="button" className="button" onClick={() => setConfirming(true)}>
        {label}
      </button>
    );
  return (
    <span className="inline-form">
      <span>{consequence}</span>
      <button type="button" className="button danger" disabled={pending} onClick={() => void onConfirm().then(() => setConfirming(false), () => {})}>
        Yes, revoke
      </button>
      <button type="button" className="button" onClick={() => setConfirming(false)}>
        Keep
      </button>
      {error && <span className="error">{error.message}</span>}
    </span>
  );
}
