import { expect, test } from '@playwright/test';
import { expectAdminAccepted } from '../support/e2e-fleet';

test('the local admin creates users on the settings page, changes a role, disables one after a confirm, and cannot demote the last admin', async ({ page, request }) => {
  const suffix = Date.now().toString(36);
  const admin = `first-admin-${suffix}@example.com`;
  const viewer = `ann-${suffix}@example.com`;
  await page.goto('/settings');
  await expectAdminAccepted(page);
  // The local admin is no user: no tokens of its own, and the way to the first admin.
  await expect(page.getByTestId('account')).toContainText('API tokens belong to users.');
  await expect(page.getByTestId('account')).toContainText('npm run admin -- users create --email');

  const form = page.getByRole('form', { name: 'Create a user' });
  await form.getByLabel('Email').fill(admin);
  await form.getByLabel('Name').fill('<img src=x onerror=alert(1)>');
  await form.getByLabel('Role').selectOption('admin');
  await form.getByLabel('Password (optional)').fill('a password of enough length');
  await form.getByRole('button', { name: 'Create user' }).click();
  const adminRow = page.locator(`[data-user-email="${admin}"]`);
  await expect(adminRow).toContainText('password');
  // A name is shown as text, never as markup.
  await expect(adminRow).toContainText('<img src=x onerror=alert(1)>');
  expect(await page.locator('img[src="x"]').count()).toBe(0);

  await form.getByLabel('Email').fill(viewer);
  await form.getByLabel('Role').selectOption('viewer');
  await form.getByRole('button', { name: 'Create user' }).click();
  const viewerRow = page.locator(`[data-user-email="${viewer}"]`);
  await expect(viewerRow).toContainText('nothing yet');

  // The only admin cannot be demoted: the server says why, and the page shows it.
  await adminRow.getByLabel(`Role of ${admin}`).selectOption('viewer');
  await expect(adminRow.getByRole('alert')).toContainText('the last admin cannot be disabled or demoted');
  await expect(adminRow.getByLabel(`Role of ${admin}`)).toHaveValue('admin');

  await viewerRow.getByLabel(`Role of ${viewer}`).selectOption('editor');
  await expect(viewerRow.getByLabel(`Role of ${viewer}`)).toHaveValue('editor');
  await viewerRow.getByRole('button', { name: 'Disable' }).click();
  await viewerRow.getByRole('button', { name: 'Keep' }).click();
  await expect(viewerRow).toContainText('active');
  await viewerRow.getByRole('button', { name: 'Disable' }).click();
  await viewerRow.getByRole('button', { name: 'Yes, disable' }).click();
  await expect(viewerRow).toContainText('disabled');
  const users = (await (await request.get('/api/v1/admin/users')).json()) as { users: { email: string; role: string; disabledAt: string | null }[] };
  expect(users.users.find((u) => u.email === viewer)).toMatchObject({ role: 'editor', disabledAt: expect.any(String) });
  await viewerRow.getByRole('button', { name: 'Enable' }).click();
  await expect(viewerRow).toContainText('active');

  // Each of those writes is in the audit log, newest first.
  const audit = page.getByRole('table', { name: 'Audit log' });
  await expect(audit.locator('[data-audit-action="user.update"]', { hasText: viewer })).toHaveCount(3);
  await expect(audit.locator('[data-audit-action="user.create"]', { hasText: admin })).toHaveCount(1);
  await expect(audit.locator('tbody tr').first()).toContainText('user.update');
  await expect(audit.locator('tbody tr').first()).toContainText('local admin (loopback)');
});
