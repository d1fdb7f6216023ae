import { expect, test } from '@playwright/test';
import type { Finding, FindingsResponse } from '../../lib/protocol/findings';
import { createEnrollmentKey, enrollHost, expectAdminAccepted, ingest, inventoryWithoutAvx2, stealReports } from '../support/e2e-fleet';

const RULE = 'cpu.avx2-missing';
// The page shows `code` spans of a message or remedy as code: the text a person reads has no backticks.
const asRead = (text: string) => text.replace(/`([^`]+)`/g, '$1');

test('a finding is grouped under its rule with its remedy and reference, acknowledged by an editor, and filters survive reload', async ({ page, request }) => {
  const suffix = Date.now().toString(36);
  const key = await createEnrollmentKey(request, { name: `findings-${suffix}`, region: 'oslo', labels: { team: 'ml' } });
  const host = await enrollHost(request, key, `osl-old-cpu-${suffix}`);
  await ingest(request, host, stealReports(1, 1, 10_000, { inventory: inventoryWithoutAvx2() }));

  // The scheduler judges a new inventory within its poll interval; wait for the API to have it, then look.
  let finding: Finding | undefined;
  await expect
    .poll(async () => {
      const response = await request.get(`/api/v1/findings?rule=${RULE}&host=${host.hostId}`);
      finding = ((await response.json()) as FindingsResponse).findings[0];
      return finding?.state;
    }, { timeout: 45_000 })
    .toBe('open');

  await page.goto('/findings');
  const group = page.locator(`[data-rule-id="${RULE}"]`).first();
  await expect(group.getByRole('button', { expanded: false })).toContainText('CPU without AVX2/FMA');
  await expect(group).toContainText('critical');
  await group.getByRole('button', { expanded: false }).click();
  await expect(page).toHaveURL(/rule=cpu\.avx2-missing/);

  const item = group.locator(`[data-finding-id="${finding!.id}"]`);
  await expect(item.getByTestId('finding-host')).toHaveText(host.hostname);
  await expect(item).toContainText(asRead(finding!.message));
  await expect(item).toContainText(`Remedy: ${asRead(finding!.remedy)}`);
  await expect(item.locator('.finding-remedy code').first()).toBeVisible();
  const reference = group.getByTestId('rule-reference');
  await expect(reference.getByRole('heading', { name: 'What it means' })).toBeVisible();
  await expect(reference.getByRole('heading', { name: 'How to fix it' })).toBeVisible();
  await expect(group.getByRole('region', { name: `Thresholds of ${RULE}` })).toBeVisible();

  // The local admin (the e2e server listens on loopback) may acknowledge; the acknowledgement is stored and shown.
  await expectAdminAccepted(page);
  await item.getByRole('button', { name: 'Acknowledge…' }).click();
  await item.getByLabel('Why is this known and accepted?').fill('old CPUs until the March migration');
  await item.getByLabel('For').selectOption({ label: '30 days' });
  await item.getByRole('button', { name: 'Acknowledge', exact: true }).click();
  await expect(item.getByTestId('ack-note')).toContainText('old CPUs until the March migration');
  const stored = (await (await request.get(`/api/v1/findings/${finding!.id}`)).json()) as Finding;
  expect(stored.acknowledgement?.reason).toBe('old CPUs until the March migration');
  await expect(group).toContainText('1 acknowledged');

  // Filters are URL state: they survive a reload, and one that excludes the host says so.
  await page.getByRole('search', { name: 'Filter findings' }).getByRole('button', { name: 'critical' }).click();
  await expect(page).toHaveURL(/severity=critical/);
  await page.reload();
  await expect(page.getByRole('search', { name: 'Filter findings' }).getByRole('button', { name: 'critical' })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator(`[data-finding-id="${finding!.id}"]`)).toContainText('old CPUs until the March migration');
  await page.evaluate(() => window.scrollTo(0, 0));

  await page.getByRole('search', { name: 'Filter findings' }).getByLabel('Region').fill('nowhere-region');
  await expect(page).toHaveURL(/region=nowhere-region/);
  await expect(page.getByText('No findings match these filters.')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('search', { name: 'Filter findings' }).getByLabel('Region')).toHaveValue('nowhere-region');
  await expect(page.getByText('No findings match these filters.')).toBeVisible();
});

test('a threshold override is saved from the rule reference and listed under it', async ({ page }) => {
  await page.goto('/findings?rule=cpu.steal-high');
  await expectAdminAccepted(page);
  const thresholds = page.getByRole('region', { name: 'Thresholds of cpu.steal-high' });
  await expect(thresholds.getByRole('row', { name: /warningPct/ })).toContainText('5 %');
  const form = thresholds.getByRole('form', { name: 'Override thresholds of cpu.steal-high' });
  await form.getByLabel('Applies to').selectOption('region');
  await form.getByLabel('Which').fill('frankfurt');
  await form.getByLabel('warningPct (%)').fill('8');
  await form.getByRole('button', { name: 'Save override' }).click();
  const row = thresholds.getByRole('table', { name: 'Overrides of cpu.steal-high' }).getByRole('row', { name: /frankfurt/ });
  await expect(row).toContainText('warningPct = 8');
  await row.getByRole('button', { name: 'Remove' }).click();
  await expect(row).toHaveCount(0);
});

test('a rule with no findings is still listed with its reference, opened and closed from the keyboard', async ({ page, request }) => {
  const rules = (await (await request.get('/api/v1/findings/rules')).json()) as { rules: { id: string }[] };
  expect(rules.rules.length).toBeGreaterThan(10);
  const doc = (await (await request.get('/api/v1/findings/rules/threads.oversubscribed')).json()) as { markdown: string };
  expect(doc.markdown).toContain('## Remedy');
  expect((await request.get('/api/v1/findings/rules/..%2F..%2Fpackage')).status()).toBe(404);

  await page.goto('/findings?rule=threads.oversubscribed');
  const group = page.locator('[data-rule-id="threads.oversubscribed"]');
  await expect(group.getByRole('button', { expanded: true })).toBeVisible();
  const reference = group.getByTestId('rule-reference');
  await expect(reference.getByRole('table').first()).toContainText('OMP_NUM_THREADS');
  await expect(reference.locator('code', { hasText: 'OMP_NUM_THREADS=2' }).first()).toBeVisible();

  // The group header is a button: Enter on it closes the rule, and the URL follows.
  await group.getByRole('button', { expanded: true }).focus();
  await page.keyboard.press('Enter');
  await expect(group.getByRole('button', { expanded: false })).toBeFocused();
  await expect(page).not.toHaveURL(/rule=/);
});

test('a rule doc shows its nested lists nested, and links between docs open the doc they name on the findings page', async ({ page, request }) => {
  const topic = await request.get('/api/v1/findings/docs/latency-explained');
  expect(topic.status()).toBe(200);
  expect(((await topic.json()) as { markdown: string }).markdown).toMatch(/^# Latency explained\n/);
  for (const name of ['..%2F..%2Fpackage', 'README', 'cpu.steal-high']) expect((await request.get(`/api/v1/findings/docs/${name}`)).status()).toBe(404);

  await page.goto('/findings?rule=cpu.avx2-missing');
  const remedy = page.locator('[data-rule-id="cpu.avx2-missing"]').getByTestId('rule-reference').getByRole('region', { name: 'How to fix it' });
  // The doc renders after hydration, its query and the Markdown chunk: seconds on a loaded machine.
  await expect(remedy).toBeVisible({ timeout: 20_000 });
  const onVm = remedy.getByRole('listitem').filter({ hasText: 'On a VM, give the guest the host CPU model' });
  const hypervisors = onVm.getByRole('list').getByRole('listitem');
  await expect(hypervisors).toHaveCount(5);
  await expect(hypervisors.first()).toContainText("KVM/libvirt: <cpu mode='host-passthrough'/>");

  await page.goto('/findings?rule=latency.p99-regression');
  const toExplained = page.locator('[data-rule-id="latency.p99-regression"]').getByTestId('rule-reference').getByRole('link', { name: 'latency explained' });
  await expect(toExplained).toBeVisible({ timeout: 20_000 });
  await toExplained.click();
  await expect(page).toHaveURL(/[?&]doc=latency-explained/);
  const doc = page.getByRole('region', { name: 'Latency explained' });
  await expect(doc.getByRole('heading', { name: 'The method' })).toBeVisible({ timeout: 20_000 });
  await expect(doc.getByRole('table').first()).toContainText('minBaselineHours');
  await expect(doc).toBeInViewport();
  await page.reload();
  await expect(doc.getByRole('heading', { name: 'The method' })).toBeVisible({ timeout: 20_000 });

  // The doc links back to the rule: its group opens, scrolled to, and the doc closes.
  await doc.getByRole('link', { name: 'latency.p99-regression' }).first().click();
  await expect(page).toHaveURL(/[?&]rule=latency\.p99-regression/);
  await expect(doc).toHaveCount(0);
  await expect(page.locator('[data-rule-id="latency.p99-regression"]').getByRole('button', { expanded: true })).toBeInViewport();

  await page.goto('/findings?doc=latency-explained');
  await expect(doc.getByRole('heading', { name: 'The method' })).toBeVisible({ timeout: 20_000 });
  await doc.getByRole('button', { name: 'Close' }).click();
  await expect(doc).toHaveCount(0);
  await expect(page).not.toHaveURL(/doc=/);
});
