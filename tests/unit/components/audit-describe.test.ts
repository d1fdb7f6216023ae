import { expect, test } from 'vitest';
import { describeAudit } from '@/components/settings/audit-describe';
import type { AuditEntryView } from '@/lib/protocol/auth';

const entry = (action: string, detail: Record<string, unknown> = {}): AuditEntryView => ({
  id: 1, at: '2026-12-05T10:00:00.000Z', actorKind: 'anonymous', actorName: 'not signed in', action, target: 'x', ip: '192.0.2.1', detail,
});

test.each([
  [entry('session.sign-in-refused', { reason: 'wrong-password', email: 'a@x.io' }), { what: 'Sign-in refused', detail: 'wrong password' }],
  [entry('session.sign-in-refused', { reason: 'unknown-email' }), { what: 'Sign-in refused', detail: 'no user with this email' }],
  [entry('session.sign-in-refused', { reason: 'throttled', scope: 'address', waitS: 40 }), { what: 'Sign-in refused', detail: 'too many failed tries; the address waits 40 s' }],
  [entry('session.sign-out'), { what: 'Signed out', detail: null }],
  [entry('session.sign-in', { method: 'oidc' }), { what: 'Signed in', detail: 'with SSO' }],
  [entry('user.change-password', { otherSessionsEnded: 1 }), { what: 'Changed their password', detail: '1 other session signed out' }],
  [entry('host.enroll', { region: 'oslo', hostId: 3 }), { what: 'Host enrolled', detail: 'region oslo' }],
  [entry('alert-rule.create'), { what: 'alert-rule.create', detail: null }],
])('%# an audit entry reads as words, with the details that matter', (input, expected) => {
  expect(describeAudit(input)).toEqual(expected);
});

test('details that are not what the server writes (an old or odd row) never break the page', () => {
  expect(describeAudit(entry('session.sign-in-refused', { reason: { nested: true } }))).toEqual({ what: 'Sign-in refused', detail: null });
  expect(describeAudit(entry('host.enroll', { region: null }))).toEqual({ what: 'Host enrolled', detail: null });
});
