import { expect, test } from '@playwright/test';
import type { FleetPage } from '../../lib/protocol/read-api/fleet';
import { createEnrollmentKey, enrollHost, firstLoadJsGzipBytes, ingest, inventoryWithoutAvx2, latencyOf } from './fleet-support';

// Agent-sent text with markup in it: it must reach the screen as the same characters, never as elements.
const run = Date.now().toString(36);
const region = `e2e-fleet-${run}`;
const badHost = `<img src=x onerror="window.__pwned=1">bad-${run}`;
const goodHost = `good-${run}`;
const latencyName = `<b>infer</b>-${run}`;
const labelValue = '<i>ml</i>';


test.beforeAll(async ({ request }) => {
  const key = await createEnrollmentKey(request, region, { team: labelValue });
  const bad = await enrollHost(request, key, badHost);
  const good = await enrollHost(request, key, goodHost);
  await ingest(request, bad, 3, (i) => ({
    cpu: { ...baseCpu(12, 4) },
    latency: [latencyOf(latencyName, 80)],
    ...(i === 0 ? { inventory: inventoryWithoutAvx2() } : {}),
  }));
  await ingest(request, good, 3, () => ({ cpu: { ...baseCpu(0.5, 0.5) }, latency: [latencyOf(latencyName, 8)] }));
});

function baseCpu(stealPct: number, iowaitPct: number) {
  const breakdown = { userPct: 40, nicePct: 0, systemPct: 10, iowaitPct, irqPct: 0.5, softirqPct: 0.5, stealPct, idlePct: 49 - stealPct - iowaitPct };
  return {
    total: breakdown,
    perCpu: [{ cpu: 0, ...breakdown }],
    onlineCpus: 1,
    contextSwitchesPerS: 1000,
    load1: 0.5,
    load5: 0.5,
    load15: 0.5,
    procsRunning: 1,
    procsBlocked: 0,
  };
}

test('the misconfigured host is highlighted and first, its agent-sent name and labels shown as text', async ({ page, request }) => {
  // The findings engine judges a new inventory within its poll interval, at the latest in its next full cycle.
  test.setTimeout(150_000);
  await expect
    .poll(
      async () => {
        const fleet = (await (await request.get(`/api/v1/fleet?regions=${region}`)).json()) as FleetPage;
        return fleet.hosts.find((h) => h.hostname === badHost)?.findings.critical ?? 0;
      },
      { timeout: 120_000, intervals: [1000] },
    )
    .toBeGreaterThan(0);
  await page.goto(`/?region=${region}`);
  const rows = page.locator('table[aria-label="Hosts"] tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.first().locator('th')).toHaveText(badHost);
  await expect(rows.first()).toHaveClass(/row-critical/);
  await expect(rows.nth(1)).not.toHaveClass(/row-critical|row-warning/);
  await expect(rows.first().locator('.finding-cell')).toContainText('critical');
  // Steal 12 % is past cpu.steal-high's warning (5 %) but not its critical (15 %); 0.5 % is past neither.
  await expect(rows.first().locator('td:has([data-metric="steal"])')).toHaveClass(/\bsev-warn\b/);
  await expect(rows.nth(1).locator('td:has([data-metric="steal"])')).toHaveClass(/\bsev-ok\b/);
  await expect(page.getByTestId('demo-banner')).toHaveCount(0);
  await expect(rows.first().getByText(`team=${labelValue}`)).toBeVisible();
  await expect(rows.first().locator('a.host-link')).toHaveAttribute('href', /^\/hosts\/\d+$/);
  await expect(rows.first().locator('[data-metric="steal"]')).toHaveText('12.0 %');
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  await expect(page.locator('main b, main i')).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  await expect(page.getByLabel('Latency series').locator('option', { hasText: latencyName })).toHaveCount(1);
});

test('filters, sort and page size live in the URL and survive a reload', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: region, exact: true }).click();
  await page.getByLabel('Search').fill(goodHost);
  const rows = page.locator('table[aria-label="Hosts"] tbody tr');
  await expect(rows).toHaveCount(1);
  await expect(rows.first().locator('th')).toHaveText(goodHost);
  // Keyboard only: the header's sort button is reachable and works with Enter.
  await page.getByRole('button', { name: 'Steal' }).focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/sort=steal/);
  await expect(page).toHaveURL(new RegExp(`q=${goodHost}`));
  await page.reload();
  await expect(page.getByLabel('Search')).toHaveValue(goodHost);
  await expect(page.getByRole('button', { name: region, exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('th[aria-sort="descending"]')).toContainText('Steal');
  await expect(rows).toHaveCount(1);
  await expect(rows.first().locator('th')).toHaveText(goodHost);
  await page.getByRole('button', { name: 'Clear filters' }).first().click();
  await expect(page).not.toHaveURL(/q=/);
});

test('the tiles say what the API says', async ({ page, request }) => {
  await page.goto('/');
  await expect(page.getByTestId('tile-misconfigured').locator('.tile-value')).not.toHaveText('—');
  const api = (await (await request.get('/api/v1/fleet')).json()) as FleetPage;
  await expect(page.getByTestId('tile-reporting').locator('.tile-value')).toContainText(`/ ${api.tiles.hosts}`);
  await expect(page.getByTestId('tile-misconfigured').getByRole('button', { name: /worst is critical|critical/ })).toContainText(
    `${api.tiles.misconfiguredHosts.critical} critical`,
  );
  await page.getByTestId('tile-misconfigured').getByRole('button', { name: /critical/ }).click();
  await expect(page).toHaveURL(/finding=critical/);
  await expect(page.getByTestId('tile-misconfigured').getByRole('button', { name: /critical/ })).toHaveAttribute('aria-pressed', 'true');
});

test('dark and light themes; the choice survives a reload', async ({ page }) => {
  await page.goto('/');
  const html = page.locator('html');
  const before = await html.getAttribute('data-theme');
  await page.getByRole('button', { name: /Switch to (light|dark) theme/ }).click();
  const after = before === 'light' ? 'dark' : 'light';
  await expect(html).toHaveAttribute('data-theme', after);
  await page.reload();
  await expect(html).toHaveAttribute('data-theme', after);
});

test('first-load JavaScript of the fleet page stays under 300 kB gzip', async ({ page }) => {
  const bytes = await firstLoadJsGzipBytes(page, '/');
  console.log(`fleet page first-load JS: ${(bytes / 1024).toFixed(1)} kB gzip`);
  expect(bytes).toBeLessThan(300 * 1024);
});

test('the fleet page filtered by region lists both its hosts, and unfiltered lists the fleet', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`/?region=${region}`);
  await expect(page.locator('table[aria-label="Hosts"] tbody tr')).toHaveCount(2);
  await page.goto('/');
  await expect(page.locator('table[aria-label="Hosts"] tbody tr').first()).toBeVisible();
});
