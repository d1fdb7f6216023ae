import { describe, expect, test } from 'vitest';
import { reenrollmentState } from '../../../components/host/reenrollment';

const access = (tokenRevokedAt: string | null = null, reenrollApprovedUntil: string | null = null) => ({ tokenRevokedAt, reenrollApprovedUntil });

describe('reenrollmentState', () => {
  test('a host that reports with its token has nothing pending: no approve button', () => {
    expect(reenrollmentState({ status: 'ok', agentAccess: access() })).toEqual({ kind: 'none' });
  });

  test('a revoked token waits on an approval, whether or not the host still reports', () => {
    expect(reenrollmentState({ status: 'ok', agentAccess: access('2026-12-05T10:00:00.000Z') })).toEqual({ kind: 'pending', why: 'revoked' });
    expect(reenrollmentState({ status: 'stale', agentAccess: access('2026-12-05T10:00:00.000Z') })).toEqual({ kind: 'pending', why: 'revoked' });
  });

  test('a host that stopped reporting may have a refused re-enrollment waiting', () => {
    expect(reenrollmentState({ status: 'stale', agentAccess: access() })).toEqual({ kind: 'pending', why: 'not-reporting' });
    expect(reenrollmentState({ status: 'never_reported', agentAccess: access() })).toEqual({ kind: 'pending', why: 'not-reporting' });
  });

  test('an approval in force is shown instead of asking again', () => {
    expect(reenrollmentState({ status: 'stale', agentAccess: access('2026-12-05T10:00:00.000Z', '2026-12-05T11:00:00.000Z') })).toEqual({
      kind: 'approved',
      until: '2026-12-05T11:00:00.000Z',
    });
  });
});
