import { afterEach, expect, test, vi } from 'vitest';
import { adminStatus } from '@/lib/auth/admin-status';

test.each([
  ['no admin token on the server: writes are off, whatever is sent', '', 'Bearer anything', { enabled: false, tokenAccepted: null }],
  ['nothing sent', 's3cret', null, { enabled: true, tokenAccepted: null }],
  ['the right token', 's3cret', 'Bearer s3cret', { enabled: true, tokenAccepted: true }],
  ['a wrong token', 's3cret', 'Bearer s3cre', { enabled: true, tokenAccepted: false }],
  ['not a bearer header', 's3cret', 'Basic czNjcmV0', { enabled: true, tokenAccepted: null }],
])('%s', (_, serverToken, authorization, expected) => {
  expect(adminStatus(authorization, serverToken)).toEqual(expected);
});

afterEach(() => vi.unstubAllEnvs());

test('the server token is INFERWATCH_ADMIN_TOKEN unless given', () => {
  vi.stubEnv('INFERWATCH_ADMIN_TOKEN', 'from-env');
  expect(adminStatus('Bearer from-env')).toEqual({ enabled: true, tokenAccepted: true });
  vi.stubEnv('INFERWATCH_ADMIN_TOKEN', '');
  expect(adminStatus('Bearer from-env')).toEqual({ enabled: false, tokenAccepted: null });
});
