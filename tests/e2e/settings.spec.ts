import { expect, test } from '@playwright/test';
import { adminHeaders, createEnrollmentKey, enrollHost, expectAdminAccepted, ingest, stealReports } from '../support/e2e-fleet';
import { screenshotIfAsked } from './screenshots';

test('an enrollment key is created by the local admin, its install command copied, and it enrolls a host until revoked', async ({ page, context, request, baseURL }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  await page.goto('/settings');
  // Loopback only: whoever reaches the server is the local admin, and the top bar says so.
  await expectAdminAccepted(page);
  await expect(page.getByTestId('session-menu')).toContainText('local admin (loopback)');

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
  // This server's install.sh, run as root with the key on its stdin: never `sudo node`, never the key as an argument.
  expect(command).toContain(`curl -fsSL ${baseURL}/install.sh -o "$f"`);
  expect(command).toContain(`printf '%s\\n' ${key} | sudo sh "$f" --server ${baseURL})`);
  expect(command).not.toContain('sudo node');
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
  await expect(panel.getByTestId('install-command')).toContainText('sudo sh "$f" --server https://iw.example)');
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

test('an admin revokes a host’s token on its page, then approves one re-enrollment that lets it back in; both audited', async ({ page, request }) => {
  const key = await createEnrollmentKey(request, { name: `token-levers-${Date.now().toString(36)}`, region: 'oslo' });
  const host = await enrollHost(request, key, `levers-${Date.now().toString(36)}`);
  await ingest(request, host, stealReports(1, 1));

  await page.goto(`/hosts/${host.hostId}`);
  // It reports with its token: no re-enrollment waits on an approval.
  await expect(page.getByRole('button', { name: 'Revoke token' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Approve re-enrollment' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Revoke token' }).click();
  await page.getByRole('button', { name: 'Yes, revoke' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Token revoked' })).toBeVisible();
  const refused = await request.post('/api/v1/ingest', { headers: { Authorization: `Bearer ${host.token}` }, data: { reports: [] } });
  expect(refused.status()).toBe(401);

  await page.getByRole('button', { name: 'Approve re-enrollment' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'One enrollment of this host is let through' })).toBeVisible();
  const back = await enrollHost(request, key, host.hostname);
  expect(back.hostId).toBe(host.hostId);

  const audit = await request.get('/api/v1/admin/audit?limit=20', { headers: adminHeaders });
  const actions = ((await audit.json()) as { entries: { action: string; target: string }[] }).entries
    .filter((entry) => entry.target.startsWith(`host ${host.hostId}`))
    .map((entry) => entry.action);
  expect(actions).toEqual(expect.arrayContaining(['host.revoke-token', 'host.approve-reenroll']));
});
