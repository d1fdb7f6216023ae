import { expect, test } from 'vitest';
import { localAgentEnvironment } from '@/lib/server/local-agent';

test('the local agent inherits PATH, HOME and the locale, never the database URL, tokens, keys or INFERWATCH_ settings', () => {
  const env = localAgentEnvironment({
    PATH: '/usr/bin',
    HOME: '/root',
    LANG: 'C.UTF-8',
    DATABASE_URL: 'postgres://u:secret@db/iw',
    INFERWATCH_ADMIN_TOKEN: 'bootstrap',
    INFERWATCH_SECRET_KEY: 'ab'.repeat(32),
    INFERWATCH_OIDC_CLIENT_SECRET: 'oidc',
    INFERWATCH_STATE_DIR: '/srv/iw',
    AWS_SECRET_ACCESS_KEY: 'x',
  });
  expect(env).toEqual({ PATH: '/usr/bin', HOME: '/root', LANG: 'C.UTF-8' });
});
