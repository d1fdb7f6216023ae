import os from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { E2E_OIDC_CLIENT, E2E_OIDC_ROLE_CLAIM, E2E_OIDC_ROLES } from './tests/support/e2e-sso';

const port = Number(process.env.E2E_PORT ?? 3210);
export const E2E_BASE_URL = `http://127.0.0.1:${port}`;
// The same server reached by a name that is not loopback, as an exposed server is: local sign-in does not apply.
const EXPOSED_HOST = 'iw.test';
const EXPOSED_URL = `http://${EXPOSED_HOST}:${port}`;
const EXPOSED_SPECS = /(exposed|sso)\.spec\.ts$/;
// The OpenID provider the exposed server signs people in with (tests/support/e2e-oidc-provider.ts); specs read its issuer.
const oidcPort = Number(process.env.E2E_OIDC_PORT ?? port + 1);
const E2E_OIDC_ISSUER = `http://127.0.0.1:${oidcPort}`;
process.env.E2E_OIDC_ISSUER = E2E_OIDC_ISSUER;
// A fresh embedded database and agent state per run: the suite proves what a clean `npm start` does.
export const E2E_STATE_DIR = process.env.E2E_STATE_DIR ?? path.join(os.tmpdir(), `inferwatch-e2e-${process.pid}`);
process.env.E2E_STATE_DIR = E2E_STATE_DIR;
// Specs that need their own regions create enrollment keys through the admin API.
export const E2E_ADMIN_TOKEN = process.env.E2E_ADMIN_TOKEN ?? 'e2e-admin-token';
process.env.E2E_ADMIN_TOKEN = E2E_ADMIN_TOKEN;

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 60_000,
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  reporter: [['list']],
  use: {
    baseURL: E2E_BASE_URL,
    trace: 'retain-on-failure',
    launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS },
  },
  projects: [
    { name: 'chromium', testIgnore: EXPOSED_SPECS, use: { browserName: 'chromium' } },
    {
      name: 'exposed',
      testMatch: EXPOSED_SPECS,
      use: {
        browserName: 'chromium',
        baseURL: EXPOSED_URL,
        launchOptions: { executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${EXPOSED_HOST} 127.0.0.1`] },
      },
    },
  ],
  webServer: [
    {
      name: 'OpenID provider',
      command: 'node --import tsx tests/support/e2e-oidc-provider.ts',
      url: `${E2E_OIDC_ISSUER}/.well-known/openid-configuration`,
      timeout: 60_000,
      reuseExistingServer: false,
      stdout: 'pipe',
      stderr: 'pipe',
      env: { E2E_OIDC_PORT: String(oidcPort), E2E_OIDC_REDIRECT_URI: `${EXPOSED_URL}/api/v1/auth/oidc/callback` },
    },
    {
      name: 'inferwatch',
      command: 'npm start',
      url: `${E2E_BASE_URL}/api/health`,
      // `npm start` builds first: 45 s on an idle 2-core machine, four times that while other work shares it.
      timeout: 600_000,
      reuseExistingServer: false,
      stdout: 'pipe',
      stderr: 'pipe',
      env: {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: '',
        INFERWATCH_DATA_DIR: path.join(E2E_STATE_DIR, 'data'),
        INFERWATCH_STATE_DIR: E2E_STATE_DIR,
        INFERWATCH_LOCAL_AGENT_INTERVAL: '2',
        // Each spec ingests the hosts it asserts on; the demo fleet (covered by tests/integration/demo-fleet.test.ts)
        // would add 42 hosts and a minute of backfill load on the one embedded connection.
        INFERWATCH_DEMO: '0',
        INFERWATCH_ADMIN_TOKEN: E2E_ADMIN_TOKEN,
        // The alerts spec's webhook receiver is on loopback, a target channels refuse unless allowed.
        INFERWATCH_ALERT_ALLOW_PRIVATE: '1',
        // The redirect URI the app sends to the provider is formed from this, as Next gives route handlers the listen address.
        INFERWATCH_PUBLIC_URL: EXPOSED_URL,
        INFERWATCH_OIDC_ISSUER: E2E_OIDC_ISSUER,
        INFERWATCH_OIDC_CLIENT_ID: E2E_OIDC_CLIENT.clientId,
        INFERWATCH_OIDC_CLIENT_SECRET: E2E_OIDC_CLIENT.clientSecret,
        INFERWATCH_OIDC_ROLE_CLAIM: E2E_OIDC_ROLE_CLAIM,
        INFERWATCH_OIDC_ROLES: E2E_OIDC_ROLES,
        NEXT_TELEMETRY_DISABLED: '1',
      },
    },
  ],
});
