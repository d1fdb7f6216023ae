import { expect, test, type APIRequestContext, type BrowserContext, type Page } from '@playwright/test';
import type { AlertsResponse } from '../../lib/protocol/alerts';
import type { FindingsResponse } from '../../lib/protocol/findings';
import { createEnrollmentKey, createStealRule, enrollHost, ingest, inventoryWithoutAvx2, stealReports } from '../support/e2e-fleet';

// The project 'exposed' reaches the e2e server as http://iw.test:<port> (Chromium maps the name to 127.0.0.1): the Host
// header is not loopback, so nobody is signed in by being local. The loopback URL is still the local admin.
const PASSWORD = 'correct horse battery staple';

function loopbackUrl(baseURL: string | undefined): string {
  const url = new URL(baseURL!);
  url.hostname = '127.0.0.1';
  return url.origin;
}

async function signIn(page: Page, email: string) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(/\/$/);
}

async function sessionCookie(context: BrowserContext): Promise<string> {
  const cookie = (await context.cookies()).find((c) => c.name === 'iw_session');
  expect(cookie, 'the sign-in set the session cookie').toBeDefined();
  return `iw_session=${cookie!.value}`;
}

/** A write from the browser's own page, same origin, with its cookie: the status the server answers. */
async function browserWrite(page: Page, path: string, body: object): Promise<number> {
  return page.evaluate(
    async ([p, b]) => (await fetch(p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(b) })).status,
    [path, body] as const,
  );
}

/** The same write sent by another site's page with the victim's cookie (browsers send Origin on every cross-site write). */
async function crossSiteWrite(request: APIRequestContext, host: string, cookie: string, path: string, body: object) {
  return request.post(path, { headers: { Cookie: cookie, Origin: 'http://evil.test', Host: host }, data: body });
}

const silence = (value: string) => ({
  matchers: [{ name: 'alertname', value, isRegex: false, isEqual: true }],
  endsAt: new Date(Date.now() + 3_600_000).toISOString(),
  comment: 'from the exposed spec',
  createdBy: 'e2e',
});

test('an exposed server asks for sign-in; a viewer reads but cannot write, cross-site writes are refused, an editor’s silence is audited under their name', async ({
  page,
  browser,
  baseURL,
  playwright,
}) => {
  test.setTimeout(180_000);
  const loopback = loopbackUrl(baseURL);
  const exposedHost = new URL(baseURL!).host;
  const admin = await playwright.request.newContext({ baseURL: loopback });
  const suffix = Date.now().toString(36);

  // Nobody signed in: every page goes to the sign-in page, and the read API answers 401.
  for (const path of ['/', '/findings', '/alerts', '/regions', '/compare', '/settings', '/hosts/1']) {
    await page.goto(path);
    await expect(page, `${path} redirects`).toHaveURL(`${baseURL}/login?next=${encodeURIComponent(path)}`);
  }
  await expect(page.getByRole('form', { name: 'Sign in' })).toBeVisible();
  expect(await page.evaluate(async () => (await fetch('/api/v1/findings')).status)).toBe(401);
  expect(await page.evaluate(async () => (await fetch('/api/v1/auth/session')).json())).toEqual({ principal: null, localSignIn: false, sso: true });

  // The local admin (loopback) makes the accounts, a finding and a firing alert to try the write buttons on.
  const viewer = { email: `viewer-${suffix}@example.com`, name: `Vera Viewer ${suffix}` };
  const editor = { email: `editor-${suffix}@example.com`, name: `Ed Editor ${suffix}` };
  for (const [user, role] of [
    [viewer, 'viewer'],
    [editor, 'editor'],
  ] as const) {
    const created = await admin.post('/api/v1/admin/users', { data: { ...user, role, password: PASSWORD } });
    expect(created.status(), await created.text()).toBe(201);
  }
  const key = await createEnrollmentKey(admin, { name: `exposed-${suffix}`, region: 'oslo' });
  const host = await enrollHost(admin, key, `exposed-${suffix}`);
  const ruleTitle = `Exposed steal ${suffix}`;
  await createStealRule(admin, { id: `e2e-exposed-${suffix}`, title: ruleTitle, hostIds: [host.hostId] });
  const reports = stealReports(4, 40);
  reports[0]!.inventory = inventoryWithoutAvx2();
  await ingest(admin, host, reports);
  await expect
    .poll(async () => ((await (await admin.get(`/api/v1/findings?host=${host.hostId}&rule=cpu.avx2-missing`)).json()) as FindingsResponse).findings.length, {
      timeout: 45_000,
    })
    .toBeGreaterThan(0);
  await expect
    .poll(async () => ((await (await admin.get(`/api/v1/alerts?state=firing&host=${host.hostId}`)).json()) as AlertsResponse).alerts.length, { timeout: 45_000 })
    .toBeGreaterThan(0);

  // The viewer signs in through the form: the fleet page, their name and role in the top bar, write buttons disabled.
  await signIn(page, viewer.email);
  await expect(page.getByRole('heading', { name: 'Fleet', level: 1 })).toBeVisible();
  await expect(page.getByTestId('session-menu')).toHaveAttribute('data-role', 'viewer');
  await expect(page.getByTestId('session-menu')).toContainText(`${viewer.name} · viewer`);
  await page.goto('/findings?rule=cpu.avx2-missing');
  const finding = page.locator('[data-finding-id]', { hasText: host.hostname }).first();
  await expect(finding.getByRole('button', { name: 'Acknowledge…' })).toBeDisabled({ timeout: 20_000 });
  await expect(page.getByTestId('access-note')).toContainText(viewer.name);
  await page.goto('/alerts');
  const alert = page.getByTestId('alerts-firing').locator('[data-alert-id]', { hasText: ruleTitle }).first();
  await expect(alert.getByRole('button', { name: 'Silence…' })).toBeDisabled({ timeout: 20_000 });
  await expect(alert.getByRole('button', { name: 'Acknowledge…' })).toBeDisabled();
  await page.goto('/alerts?tab=silences');
  await expect(page.getByText('Creating or expiring silences needs the editor role.')).toBeVisible();
  await expect(page.getByRole('form', { name: 'New silence' })).toHaveCount(0);
  expect(await browserWrite(page, '/api/v1/alerts/silences', silence(ruleTitle))).toBe(403);

  // Another site's page cannot ride on the viewer's cookie.
  const viewerCookie = await sessionCookie(page.context());
  const viewerCrossSite = await crossSiteWrite(admin, exposedHost, viewerCookie, '/api/v1/alerts/silences', silence(ruleTitle));
  expect(viewerCrossSite.status()).toBe(403);

  // Signing out ends the session: a reload goes to the sign-in page, and the old cookie is no longer anyone.
  await page.goto('/settings');
  await page.getByTestId('session-menu').getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto('/');
  await expect(page).toHaveURL(/\/login\?next=/);
  const stale = await admin.get('/api/v1/auth/session', { headers: { Cookie: viewerCookie, Host: exposedHost } });
  expect(((await stale.json()) as { principal: unknown }).principal).toBeNull();

  // The editor: a cross-site write with their cookie is refused even though the role would allow it.
  await signIn(page, editor.email);
  await expect(page.getByTestId('session-menu')).toHaveAttribute('data-role', 'editor');
  const editorCookie = await sessionCookie(page.context());
  const editorCrossSite = await crossSiteWrite(admin, exposedHost, editorCookie, '/api/v1/alerts/silences', silence(`cross-site-${suffix}`));
  expect(editorCrossSite.status()).toBe(403);
  expect(await editorCrossSite.text()).toContain('cross-site');

  // The editor silences the alert through the page.
  await page.goto('/alerts?tab=silences');
  const form = page.getByRole('form', { name: 'New silence' });
  await form.getByLabel('Matcher 1 value').fill(ruleTitle);
  await form.getByLabel('Why').fill(`editor silence ${suffix}`);
  await form.getByLabel('Who').fill(editor.name);
  await form.getByRole('button', { name: 'Create silence' }).click();
  await expect(page.locator('[data-silence-id]', { hasText: `editor silence ${suffix}` })).toBeVisible();

  // The local admin's browser (loopback) reads the audit log: the silence, by the editor's name; the cross-site try is absent.
  const adminContext = await browser.newContext({ baseURL: loopback });
  const adminPage = await adminContext.newPage();
  await adminPage.goto('/settings');
  const entry = adminPage.locator('[data-audit-action="silence.create"]', { hasText: editor.name });
  await expect(entry).toHaveCount(1);
  await expect(adminPage.getByRole('table', { name: 'Users' }).locator(`[data-user-email="${editor.email}"]`)).toContainText('password');
  await adminContext.close();
  await admin.dispose();
});

test('a signed-in user makes an API token on the settings page that reads with their role until revoked', async ({ page, baseURL, playwright }) => {
  const loopback = await playwright.request.newContext({ baseURL: loopbackUrl(baseURL) });
  const suffix = Date.now().toString(36);
  const email = `tokens-${suffix}@example.com`;
  const created = await loopback.post('/api/v1/admin/users', { data: { email, name: `Tia Tokens ${suffix}`, role: 'editor', password: PASSWORD } });
  expect(created.status(), await created.text()).toBe(201);
  await signIn(page, email);
  await page.goto('/settings');
  const account = page.getByTestId('account');
  await expect(account).toContainText(`Tia Tokens ${suffix}`);
  await expect(account.getByTestId('account-role')).toHaveText('editor');
  // An editor may make viewer and editor tokens, not admin ones; and the admin panels are not shown.
  const form = account.getByRole('form', { name: 'Create an API token' });
  await expect(form.getByLabel('Role').locator('option')).toHaveText(['viewer', 'editor']);
  await expect(page.getByRole('heading', { name: 'Users' })).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'Audit log' })).toHaveCount(0);

  await form.getByLabel('Name').fill('grafana');
  await form.getByLabel('Role').selectOption('viewer');
  await form.getByRole('button', { name: 'Create token' }).click();
  const panel = page.getByTestId('new-token');
  const token = (await panel.getByTestId('new-token-value').textContent())!;
  expect(token).toMatch(/^iwt_/);
  await expect(panel).toContainText('Authorization: Bearer');
  await expect(panel).toContainText(`credentials: ${token}`);
  await panel.getByRole('button', { name: 'Done, hide the token' }).click();
  await expect(page.getByTestId('new-token')).toHaveCount(0);
  await expect(page.getByText(token)).toHaveCount(0);

  const asToken = { Authorization: `Bearer ${token}`, Host: new URL(baseURL!).host };
  expect((await loopback.get('/api/v1/findings', { headers: asToken })).status()).toBe(200);
  expect((await loopback.post('/api/v1/alerts/silences', { headers: asToken, data: silence(`token-${suffix}`) })).status()).toBe(403);

  const row = page.locator('[data-token-name="grafana"]');
  await expect(row).toContainText(token.slice(0, 8));
  await expect(row).toContainText('viewer');
  await row.getByRole('button', { name: 'Revoke' }).click();
  await row.getByRole('button', { name: 'Yes, revoke' }).click();
  await expect(row).toContainText('revoked');
  expect((await loopback.get('/api/v1/findings', { headers: asToken })).status()).toBe(401);
  await loopback.dispose();
});
