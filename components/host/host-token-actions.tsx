'use client';

import { useMutation } from '@tanstack/react-query';
import type { ReenrollApproval } from '@/lib/protocol/admin';
import { ConfirmRevoke } from '../confirm-revoke';
import { useAccess } from '../hooks/use-session-query';
import { sendJson } from '../send-json';
import { LocalTime } from '../time/local-time';

/**
 * An administrator's two levers on a host's agent: revoke its token (a stolen token, a retired machine) and let one
 * re-enrollment through without proof (a reinstalled machine, or a revoked host let back in). Hidden from others.
 */
export function HostTokenActions({ hostId }: { hostId: number }) {
  const { canAdmin } = useAccess();
  const revoke = useMutation({
    mutationFn: () => sendJson<void>(`/api/v1/admin/hosts/${hostId}/token-revocation`, { method: 'POST' }),
  });
  const approve = useMutation({
    mutationFn: () => sendJson<ReenrollApproval>(`/api/v1/admin/hosts/${hostId}/reenroll-approval`, { method: 'POST' }),
  });
  if (!canAdmin) return null;
  return (
    <div className="host-token-actions">
      <ConfirmRevoke
        label="Revoke token"
        consequence="Revoke this host's token? Its agent is refused until you approve a re-enrollment."
        pending={revoke.isPending}
        onConfirm={() => revoke.mutateAsync()}
      />
      <button type="button" className="button" disabled={approve.isPending} onClick={() => approve.mutate()}>
        Approve re-enrollment
      </button>
      {revoke.isSuccess && <p role="status">Token revoked: this host&apos;s reports are refused from now on.</p>}
      {approve.data && (
        <p role="status">
          One enrollment of this host is let through until <LocalTime iso={approve.data.approvedUntil} />: on the machine,
          delete host-token.json in the agent&apos;s state directory and restart the agent with its enrollment key.
        </p>
      )}
      {(revoke.error ?? approve.error) && <p className="error">{(revoke.error ?? approve.error)!.message}</p>}
    </div>
  );
}
