import type { AuditEntryView } from '@/lib/protocol/auth';

const ACTIONS: Record<string, string> = {
  'session.sign-in': 'Signed in',
  'session.sign-in-refused': 'Sign-in refused',
  'session.sign-out': 'Signed out',
  'user.change-password': 'Changed their password',
  'user.create': 'Created a user',
  'user.update': 'Changed a user',
  'host.enroll': 'Host enrolled',
  'host.reenroll': 'Host enrolled again',
  'host.revoke-token': 'Revoked a host’s token',
  'host.approve-reenroll': 'Approved a re-enrollment',
};

const REFUSALS: Record<string, string> = {
  'wrong-password': 'wrong password',
  'unknown-email': 'no user with this email',
  disabled: 'the user is disabled',
  'sso-only': 'the user signs in through SSO only',
  throttled: 'too many failed tries',
};

const text = (value: unknown): string | null => (typeof value === 'string' || typeof value === 'number' ? String(value) : null);

/** What the details say, in words, for the entries whose details matter: why a sign-in was refused, where a host enrolled. */
function describeDetail(entry: AuditEntryView): string | null {
  const d = entry.detail;
  switch (entry.action) {
    case 'session.sign-in-refused': {
      const reason = REFUSALS[text(d.reason) ?? ''] ?? text(d.reason);
      const wait = text(d.waitS) && `${d.scope === 'address' ? 'the address' : 'the account'} waits ${text(d.waitS)} s`;
      return [reason, wait].filter(Boolean).join('; ') || null;
    }
    case 'session.sign-in':
      return text(d.method) && `with ${d.method === 'oidc' ? 'SSO' : 'a password'}`;
    case 'user.change-password':
      return typeof d.otherSessionsEnded === 'number' ? `${d.otherSessionsEnded} other session${d.otherSessionsEnded === 1 ? '' : 's'} signed out` : null;
    case 'host.enroll':
    case 'host.reenroll':
      return text(d.region) && `region ${d.region}`;
    default:
      return null;
  }
}

/** An audit entry as a reader wants it: what happened in words (the action's code when it has none) and its details. */
export function describeAudit(entry: AuditEntryView): { what: string; detail: string | null } {
  return { what: ACTIONS[entry.action] ?? entry.action, detail: describeDetail(entry) };
}
