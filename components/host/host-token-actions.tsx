'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ReenrollApproval } from '@/lib/protocol/admin';
import type { HostDetail } from '@/lib/protocol/read-api/host';
import { ConfirmRevoke } from '../confirm-revoke';
import { useAccess } from '../hooks/use-session-query';
import { sendJson } from '../send-json';
import { LocalTime } from '../time/local-time';
import { hostQueryKey } from './host-queries';
import { reenrollmentState } from './reenrollment';

/**
 * An administrator's two levers on a host's agent: revoke its token (a stolen token, a retired machine) and, when a
 * re-enrollment waits on it, let one through without proof (a reinstalled machine, or a revoked host let back in).
 * Hidden from others.
 */
export function HostTokenActions({ host }: { host: HostDetail }) {
  const { canAdmin } = useAccess();
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: hostQueryKey(host.id) });
  const revoke = useMutation({
    mutationFn: () => sendJson<void>(`/api/v1/admin/hosts/${host.id}/token-revocation`, { method: 'POST' }),
    onSuccess: refresh,
  });
  const approve = useMutation({
    mutationFn: () => sendJson<ReenrollApproval>(`/api/v1/admin/hosts/${host.id}/reenroll-approval`, { method: 'POST' }),
    onSuccess: refresh,
  });
  if (!canAdmin) return null;
  const reenrollment = reenrollmentState(host);
  return (
    <div className="host-token-actions">
      {host.agentAccess.tokenRevokedAt === null && (
        <ConfirmRevoke
          label="Revoke token"
          consequence="Revoke this host's token? Its agent is refused until you approve a re-enrollment."
          pending={revoke.isPending}
          onConfirm={() => revoke.mutateAsync()}
        />
      )}
      {reenrollment.kind === 'pending' && (
        <button
          type="button"
          className="button"
          disabled={approve.isPending}
          onClick={() => approve.mutate()}
          title={
            reenrollment.why === 'revoked'
              ? 'Its token is revoked: its agent stays refused until you approve one re-enrollment.'
              : 'It stopped reporting: if its agent lost its state or the machine was reinstalled, its enrollment is refused until you approve one.'
          }
        >
          Approve re-enrollment
        </button>
      )}
      {host.agentAccess.tokenRevokedAt !== null && reenrollment.kind !== 'approved' && (
        <p role="status">
          Token revoked <LocalTime iso={host.agentAccess.tokenRevokedAt} />: this host&apos;s reports are refused until you
          approve a re-enrollment.
        </p>
      )}
      {reenrollment.kind === 'approved' && (
        <p role="status">
          One enrollment of this host is let through until <LocalTime iso={reenrollment.until} />: on the machine,
          delete host-token.json in the agent&apos;s state directory and restart the agent with its enrollment key.
        </p>
      )}
      {(revoke.error ?? approve.error) && <p className="error">{(revoke.error ?? approve.error)!.message}</p>}
    </div>
  );
}
