import { expect, test } from '@playwright/test';
import { expectAdminAccepted } from '../support/e2e-fleet';

test('the local admin creates users on the settings page, changes a role, disables one after a confirm, and cannot demote the last admin', async ({ page, request }) => {
  const suffix = Date.now().toString(36);
  const admin = `first-admin-${suffix}@example.com`;
  const viewer = `ann-${suffix}@example.com`;
  await page.goto('/settings');
  await expectAdminAccepted(page);
  // The local admin is no user: no tokens of its own, and the way to the first admin is on this page, not a CLI.
  await expect(page.getByTestId('account')).toContainText('API tokens belong to users.');
  await expect(page.getByTestId('account')).toContainText('Create the first admin under Users below');
  await expect(page.getByTestId('account')).not.toContainText('npm run admin');

  const form = page.getByRole('form', { name: 'Create a user' });
  await form.getByLabel('Email').fill(admin);
  await form.getByLabel('Name').fill('<img src=x onerror=alert(1)>');
  await form.getByLabel('Role').selectOption('admin');
  await form.getByLabel('Signs in with').selectOption('typed');
  await form.getByLabel('Password', { exact: true }).fill('a password of enough length');
  await form.getByRole('button', { name: 'Create user' }).click();
  const adminRow = page.locator(`[data-user-email="${admin}"]`);
  await expect(adminRow).toContainText('password');
  // A name is shown as text, never as markup.
  await expect(adminRow).toContainText('<img src=x onerror=alert(1)>');
  expect(await page.locator('img[src="x"]').count()).toBe(0);

  await form.getByLabel('Email').fill(viewer);
  await form.getByLabel('Role').selectOption('viewer');
  await form.getByLabel('Signs in with').selectOption('sso');
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

test('the local admin creates a user with a generated password shown once; that user signs in, changes it, signs out and back in with the new one', async ({ page }) => {
  const email = `gen-${Date.now().toString(36)}@example.com`;
  const newPassword = 'my own new passphrase';
  await page.goto('/settings');
  await expectAdminAccepted(page);
  const form = page.getByRole('form', { name: 'Create a user' });
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Name').fill('Gen');
  await form.getByLabel('Role').selectOption('editor');
  await expect(form.getByLabel('Signs in with')).toHaveValue('generated');
  await form.getByRole('button', { name: 'Create user' }).click();
  const generated = (await page.getByTestId('generated-password-value').textContent())!;
  expect(generated).toMatch(/^[\w-]{24}$/);
  await page.getByRole('button', { name: 'Done, hide the password' }).click();
  await expect(page.getByTestId('generated-password')).toHaveCount(0);
  await expect(page.getByText(generated)).toHaveCount(0);

  await page.goto('/login?next=/settings');
  const signIn = page.getByRole('form', { name: 'Sign in' });
  await signIn.getByLabel('Email').fill(email);
  await signIn.getByLabel('Password').fill(generated);
  await signIn.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/settings$/);
  const menu = page.getByTestId('session-menu');
  await expect(menu).toContainText('Gen · editor');
  // "Sign out" stands apart from the name.
  const nameBox = (await menu.locator('span').first().boundingBox())!;
  const buttonBox = (await menu.getByRole('button', { name: 'Sign out' }).boundingBox())!;
  expect(buttonBox.x - (nameBox.x + nameBox.width)).toBeGreaterThanOrEqual(8);

  const change = page.getByRole('form', { name: 'Change your password' });
  await change.getByLabel('Current password').fill('not the password');
  await change.getByLabel('New password', { exact: true }).fill(newPassword);
  await change.getByLabel('New password again').fill(newPassword);
  await change.getByRole('button', { name: 'Change password' }).click();
  await expect(change.getByRole('alert')).toContainText('the current password is wrong');
  await change.getByLabel('Current password').fill(generated);
  await change.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByTestId('password-changed')).toContainText('Password changed');

  await menu.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await signIn.getByLabel('Email').fill(email);
  await signIn.getByLabel('Password').fill(generated);
  await signIn.getByRole('button', { name: 'Sign in' }).click();
  await expect(signIn.getByRole('alert')).toContainText('wrong email or password');
  await signIn.getByLabel('Password').fill(newPassword);
  await signIn.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/$/);
});

test('after five wrong passwords the sign-in page says how long to wait, and counts it down', async ({ page }) => {
  const email = `typo-${Date.now().toString(36)}@example.com`;
  await page.goto('/login');
  const signIn = page.getByRole('form', { name: 'Sign in' });
  await signIn.getByLabel('Email').fill(email);
  for (let i = 0; i < 5; i++) {
    await signIn.getByLabel('Password').fill(`wrong guess ${i}`);
    await signIn.getByRole('button', { name: 'Sign in' }).click();
    await expect(signIn.getByRole('alert')).toContainText('wrong email or password');
  }
  await signIn.getByRole('button', { name: 'Sign in' }).click();
  const wait = signIn.getByTestId('sign-in-wait');
  await expect(wait).toHaveText(/^Too many failed sign-ins for this account: try again in (\d+) s\.$/);
  const first = Number(/in (\d+) s/.exec((await wait.textContent())!)![1]);
  expect(first).toBeGreaterThan(0);
  expect(first).toBeLessThanOrEqual(30);
  await expect(wait).not.toHaveText(`Too many failed sign-ins for this account: try again in ${first} s.`, { timeout: 5_000 });
});
