import type { HostDetail } from '@/lib/protocol/read-api/host';

/**
 * What waits on an administrator's approval of a re-enrollment: a revoked token (the host stays out until one), or
 * a host that stopped reporting (its reinstalled agent is refused until one proves or approves it). A host that
 * reports with its token has nothing pending; an approval already in force has nothing more to approve.
 */
export type ReenrollmentState =
  | { kind: 'none' }
  | { kind: 'approved'; until: string }
  | { kind: 'pending'; why: 'revoked' | 'not-reporting' };

export function reenrollmentState(host: Pick<HostDetail, 'status' | 'agentAccess'>): ReenrollmentState {
  const { tokenRevokedAt, reenrollApprovedUntil } = host.agentAccess;
  if (reenrollApprovedUntil !== null) return { kind: 'approved', until: reenrollApprovedUntil };
  if (tokenRevokedAt !== null) return { kind: 'pending', why: 'revoked' };
  if (host.status !== 'ok') return { kind: 'pending', why: 'not-reporting' };
  return { kind: 'none' };
}
