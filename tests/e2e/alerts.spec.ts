import { expect, test } from '@playwright/test';
import type { Alert, AlertsResponse, Silence } from '../../lib/protocol/alerts';
import { createEnrollmentKey, createStealRule, enrollHost, expectAdminAccepted, ingest, stealReports } from '../support/e2e-fleet';
import { screenshotIfAsked } from './screenshots';

test('a steal spike ingested through the API fires an alert that the page shows, and a silence made from it holds it', async ({ page, request }) => {
  const suffix = Date.now().toString(36);
  const key = await createEnrollmentKey(request, { name: `alerts-${suffix}`, region: 'frankfurt' });
  const host = await enrollHost(request, key, `fra-noisy-${suffix}`);
  const ruleId = `e2e-steal-${suffix}`;
  await createStealRule(request, { id: ruleId, title: `E2E steal over 20 % (${suffix})`, hostIds: [host.hostId] });

  await page.goto(`/alerts?rule=${ruleId}`);
  await expect(page.getByTestId('alerts-firing')).toContainText('Nothing is firing');

  await ingest(request, host, stealReports(4, 40));
  // The engine evaluates a host right after its ingest and every 15 s; the page polls at the same interval.
  let alert: Alert | undefined;
  await expect
    .poll(async () => {
      const response = await request.get(`/api/v1/alerts?state=firing&rule=${ruleId}`);
      alert = ((await response.json()) as AlertsResponse).alerts[0];
      return alert?.state;
    }, { timeout: 40_000 })
    .toBe('firing');
  const item = page.getByTestId('alerts-firing').locator(`[data-alert-id="${alert!.id}"]`);
  await expect(item).toBeVisible({ timeout: 20_000 });
  await expect(item).toContainText(`E2E steal over 20 % (${suffix})`);
  await expect(item.getByTestId('alert-host')).toHaveText(host.hostname);
  await expect(item.locator('.labels')).toContainText('region=frankfurt');

  await expectAdminAccepted(page);
  await item.getByRole('button', { name: 'Silence…' }).click();
  const form = item.getByRole('form', { name: 'New silence' });
  await expect(form.getByLabel('Matcher 1 label')).toHaveValue('alertname');
  await expect(form.getByLabel('Matcher 1 value')).toHaveValue(ruleId);
  await expect(form.getByLabel('Matcher 2 value')).toHaveValue(host.hostname);
  await form.getByLabel('Why').fill('provider migrating the VM');
  await form.getByLabel('Who').fill('e2e');
  await form.getByRole('button', { name: 'Create silence' }).click();
  await expect(item.getByTestId('silenced')).toBeVisible();

  const silences = (await (await request.get('/api/v1/alerts/silences?state=active')).json()) as { silences: Silence[] };
  const silence = silences.silences.find((s) => s.comment === 'provider migrating the VM');
  expect(silence?.matchers).toEqual(
    expect.arrayContaining([expect.objectContaining({ name: 'alertname', value: ruleId }), expect.objectContaining({ name: 'host', value: host.hostname })]),
  );

  await item.getByRole('button', { name: 'Acknowledge…' }).click();
  await item.getByLabel('Who').fill('oncall-e2e');
  await item.getByLabel('Note').fill('looking');
  await item.getByRole('button', { name: 'Acknowledge', exact: true }).click();
  await expect(item).toContainText('Acknowledged by oncall-e2e');
  await page.evaluate(() => window.scrollTo(0, 0));
  await screenshotIfAsked(page, 'alerts');

  // The silences tab lists it; the tab and filters are URL state and survive a reload.
  await page.getByRole('tab', { name: 'Silences' }).click();
  await expect(page).toHaveURL(/tab=silences/);
  await page.reload();
  await expect(page.getByRole('tab', { name: 'Silences' })).toHaveAttribute('aria-selected', 'true');
  const row = page.locator(`[data-silence-id="${silence!.id}"]`);
  await expect(row).toContainText(`host="${host.hostname}"`);
  await row.getByRole('button', { name: 'Expire now' }).click();
  await expect(row).toHaveAttribute('data-silence-state', 'expired');

  // Arrow keys move between tabs.
  await page.getByRole('tab', { name: 'Silences' }).focus();
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('tab', { name: 'Rules' })).toBeFocused();
  await expect(page.getByRole('row', { name: new RegExp(ruleId) })).toContainText('avg cpu_steal over 10 s > 20');

  // Steal back to normal resolves it; it moves to the history.
  await ingest(request, host, stealReports(4, 1));
  await expect
    .poll(async () => ((await (await request.get(`/api/v1/alerts?state=resolved&rule=${ruleId}`)).json()) as AlertsResponse).alerts.length, { timeout: 40_000 })
    .toBe(1);
  await page.goto(`/alerts?rule=${ruleId}&severity=critical`);
  await expect(page.getByTestId('alerts-resolved').locator(`[data-alert-id="${alert!.id}"]`)).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole('search', { name: 'Filter alerts' }).getByRole('button', { name: 'critical' })).toHaveAttribute('aria-pressed', 'true');
});

test('channels show their secret as a prefix only and the delivery log is behind the editor role', async ({ page }) => {
  await page.goto('/alerts?tab=channels');
  await expectAdminAccepted(page);
  const suffix = Date.now().toString(36);
  const form = page.getByRole('form', { name: 'New channel' });
  await form.getByLabel('Name').fill(`hook-${suffix}`);
  await form.getByLabel('Receiver URL').fill('http://127.0.0.1:9/hook');
  await form.getByLabel('Signing secret (16+ characters)').fill('s3cret-signing-key-0123456789');
  await form.getByRole('button', { name: 'Add channel' }).click();
  const row = page.locator(`[data-channel="hook-${suffix}"]`);
  await expect(row).toContainText('webhook');
  await expect(page.locator('body')).not.toContainText('s3cret-signing-key-0123456789');
  await page.getByRole('tab', { name: 'Deliveries' }).click();
  await expect(page.getByRole('search', { name: 'Filter deliveries' }).or(page.getByRole('form', { name: 'Filter deliveries' }))).toBeVisible();
});
