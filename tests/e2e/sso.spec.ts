import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import type { AuditEntryView, SessionInfo, UserView } from '../../lib/protocol/auth';
import type { Finding, FindingsResponse } from '../../lib/protocol/findings';
import { createEnrollmentKey, enrollHost, ingest, inventoryWithoutAvx2, stealReports } from '../support/e2e-fleet';
import { E2E_OIDC_ROLE_CLAIM, E2E_SSO_ACCOUNTS } from '../support/e2e-sso';

// The project 'exposed' reaches the server as http://iw.test:<port>, so nobody is signed in by being local; the server
// signs people in through the OpenID provider (oidc-provider) that playwright.config.ts runs on loopback before it.
const ISSUER = process.env.E2E_OIDC_ISSUER!;
const { editor, unmapped } = E2E_SSO_ACCOUNTS;

function loopbackUrl(baseURL: string | undefined): string {
  const url = new URL(baseURL!);
  url.hostname = '127.0.0.1';
  return url.origin;
}

async function sessionOf(page: Page): Promise<SessionInfo> {
  return page.evaluate(async () => (await (await fetch('/api/v1/auth/session')).json()) as SessionInfo);
}

/** From the app's sign-in page to the provider's own login page, and signing in there as `accountId`. */
async function signInWithSso(page: Page, accountId: string): Promise<void> {
  await page.getByRole('form', { name: 'Sign in' }).getByRole('link', { name: 'Sign in with SSO' }).click();
  await expect(page).toHaveURL((url) => url.origin === ISSUER && url.pathname.startsWith('/interaction/'));
  await expect(page.getByRole('heading', { name: 'Sign in to the test OpenID provider' })).toBeVisible();
  await page.getByLabel('Account').fill(accountId);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A host whose CPU lacks AVX2, ingested through the API, and the finding the server opens for it. */
async function openFinding(admin: APIRequestContext, suffix: string): Promise<Finding> {
  const key = await createEnrollmentKey(admin, { name: `sso-${suffix}`, region: 'oslo' });
  const host = await enrollHost(admin, key, `sso-${suffix}`);
  await ingest(admin, host, stealReports(1, 1, 10_000, { inventory: inventoryWithoutAvx2() }));
  let finding: Finding | undefined;
  await expect
    .poll(async () => {
      finding = ((await (await admin.get(`/api/v1/findings?rule=cpu.avx2-missing&host=${host.hostId}`)).json()) as FindingsResponse).findings[0];
      return finding?.state;
    }, { timeout: 45_000 })
    .toBe('open');
  return finding!;
}

test('a person signs in at the provider’s login page, returns to the page they asked for as the editor their groups make them, may acknowledge but not administer, and signs out', async ({
  page,
  baseURL,
  playwright,
}) => {
  test.setTimeout(120_000);
  const admin = await playwright.request.newContext({ baseURL: loopbackUrl(baseURL) });
  const finding = await openFinding(admin, Date.now().toString(36));

  const asked = `/findings?rule=cpu.avx2-missing&host=${finding.hostId}`;
  await page.goto(asked);
  await expect(page).toHaveURL(`${baseURL}/login?next=${encodeURIComponent(asked)}`);
  expect(await sessionOf(page)).toEqual({ principal: null, localSignIn: false, sso: true });
  await signInWithSso(page, editor.id);

  await expect(page).toHaveURL(`${baseURL}${asked}`);
  await expect(page.getByTestId('session-menu')).toHaveAttribute('data-role', 'editor');
  await expect(page.getByTestId('session-menu')).toContainText(`${editor.name} · editor`);
  expect((await sessionOf(page)).principal).toEqual({ kind: 'user', name: editor.name, email: editor.email, role: 'editor' });

  // An editor may acknowledge a finding; the audit log has it under their name.
  const item = page.locator(`[data-finding-id="${finding.id}"]`);
  await item.getByRole('button', { name: 'Acknowledge…' }).click();
  await item.getByLabel('Why is this known and accepted?').fill('signed in through SSO');
  await item.getByRole('button', { name: 'Acknowledge', exact: true }).click();
  await expect(item.getByTestId('ack-note')).toContainText('signed in through SSO');
  const audit = (await (await admin.get('/api/v1/admin/audit')).json()) as { entries: AuditEntryView[] };
  expect(audit.entries.find((e) => e.action === 'finding.acknowledge' && e.target === `finding ${finding.id}`)?.actorName).toBe(editor.name);

  // Not an admin: the settings page shows their account but none of the admin panels, and the admin API refuses.
  await page.goto('/settings');
  await expect(page.getByTestId('account').getByTestId('account-role')).toHaveText('editor');
  await expect(page.getByRole('heading', { name: 'Users' })).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'Audit log' })).toHaveCount(0);
  expect(await page.evaluate(async () => (await fetch('/api/v1/admin/users')).status)).toBe(403);

  await page.getByTestId('session-menu').getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto('/');
  await expect(page).toHaveURL(`${baseURL}/login?next=%2F`);
  expect((await sessionOf(page)).principal).toBeNull();
  await admin.dispose();
});

test('an account whose groups map to no role is refused on the sign-in page with the reason, and no user is made', async ({ page, baseURL, playwright }) => {
  await page.goto('/login');
  await signInWithSso(page, unmapped.id);

  await expect(page).toHaveURL((url) => url.href.startsWith(`${baseURL}/login?`) && url.searchParams.has('sso_error'));
  await expect(page.getByRole('form', { name: 'Sign in' }).getByRole('alert')).toHaveText(
    `${unmapped.email} has no role here: no value of its "${E2E_OIDC_ROLE_CLAIM}" claim is in INFERWATCH_OIDC_ROLES`,
  );
  expect((await sessionOf(page)).principal).toBeNull();
  const admin = await playwright.request.newContext({ baseURL: loopbackUrl(baseURL) });
  const { users } = (await (await admin.get('/api/v1/admin/users')).json()) as { users: UserView[] };
  expect(users.map((u) => u.email)).not.toContain(unmapped.email);
  await admin.dispose();
});
