import { expect, test } from '@playwright/test';
import { E2E_ADMIN_TOKEN, expectAdminAccepted, pasteAdminToken } from '../support/e2e-fleet';
import { screenshotIfAsked } from './screenshots';

test('an enrollment key is created with the admin token, its install command copied, and it enrolls a host until revoked', async ({ page, context, request, baseURL }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  await page.goto('/settings');
  await expect(page.locator('[data-admin-access="missing"]')).toBeVisible();
  await expect(page.getByText('Enrollment keys need the admin token.')).toBeVisible();

  await pasteAdminToken(page, 'not-the-token');
  await expect(page.locator('[data-admin-access="rejected"]')).toContainText('rejected');
  await pasteAdminToken(page, E2E_ADMIN_TOKEN);
  await expectAdminAccepted(page);
  // sessionStorage only: it survives a reload of this tab, and is not in local storage or a cookie.
  await page.reload();
  await expectAdminAccepted(page);
  const stored = await page.evaluate(() => [sessionStorage.getItem('inferwatch.adminToken'), JSON.stringify(localStorage), document.cookie]);
  expect(stored[0]).toBe(E2E_ADMIN_TOKEN);
  expect(stored[1]).not.toContain(E2E_ADMIN_TOKEN);
  expect(stored[2]).not.toContain(E2E_ADMIN_TOKEN);

  const suffix = Date.now().toString(36);
  const name = `oslo-prod-${suffix}`;
  const form = page.getByRole('form', { name: 'Create an enrollment key' });
  await form.getByLabel('Name').fill(name);
  await form.getByLabel('Region').fill('oslo');
  await form.getByLabel('Labels').fill('team=ml, env=prod');
  await form.getByLabel('Expires after').selectOption({ label: '7 days' });
  await form.getByRole('button', { name: 'Create key' }).click();

  const panel = page.getByTestId('new-key');
  const key = (await panel.getByTestId('new-key-value').textContent())!;
  expect(key).toMatch(/^iwk_[A-Za-z0-9_-]{20,}$/);
  const command = (await panel.getByTestId('install-command').textContent())!;
  expect(command).toContain(key);
  expect(command).toContain(`--server ${baseURL}`);
  expect(command).toContain('--enroll-key-file /etc/inferwatch/enroll-key');
  await expect(page.getByTestId('loopback-note')).toBeVisible();
  await panel.getByRole('button', { name: 'Copy command' }).click();
  await expect(panel.getByText('Copied.')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(command);

  const row = page.locator(`[data-key-name="${name}"]`);
  await expect(row).toContainText(key.slice(0, 10));
  await expect(row).toContainText('team=ml');
  await expect(row).toContainText('active');
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshotIfAsked(page, 'settings');

  // The server address the command names is URL state.
  await page.getByLabel('Server address the agents reach').fill('https://iw.example');
  await expect(page).toHaveURL(/server=https/);
  await expect(panel.getByTestId('install-command')).toContainText('--server https://iw.example');
  await page.reload();
  await expect(page.getByLabel('Server address the agents reach')).toHaveValue('https://iw.example');

  const enrolled = await request.post('/api/v1/enroll', { headers: { Authorization: `Bearer ${key}` }, data: { hostname: `via-settings-${suffix}`, machineId: null } });
  expect(enrolled.status()).toBe(200);
  expect(await enrolled.json()).toMatchObject({ region: 'oslo' });

  await row.getByRole('button', { name: 'Revoke' }).click();
  await row.getByRole('button', { name: 'Yes, revoke' }).click();
  await expect(row).toContainText('revoked');
  const refused = await request.post('/api/v1/enroll', { headers: { Authorization: `Bearer ${key}` }, data: { hostname: `after-revoke-${suffix}`, machineId: null } });
  expect([401, 403]).toContain(refused.status());
});

test('a new tab starts without the token: writes are off until it is pasted', async ({ browser, baseURL }) => {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await page.goto('/settings');
  await expect(page.locator('[data-admin-access="missing"]')).toBeVisible();
  await expect(page.getByRole('form', { name: 'Create an enrollment key' })).toHaveCount(0);
  await context.close();
});
