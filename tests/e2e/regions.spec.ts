import { expect, test } from '@playwright/test';
import { formatMs } from '../../components/format';
import type { RegionCompareResponse } from '../../lib/protocol/read-api/regions';
import { createEnrollmentKey, enrollHost, ingest, latencyOf } from './fleet-support';

const run = Date.now().toString(36);
const probeName = `users-<u>no</u>-${run}`;
const probe = (connectMs: number) => ({ name: probeName, target: 'tcp://gw.example:443', ok: true, connectMs, responseMs: connectMs * 2, error: null });

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ request }) => {
  const oslo = await createEnrollmentKey(request, 'oslo');
  const frankfurt = await createEnrollmentKey(request, 'frankfurt');
  for (const [key, hostname, latencyMs, rttMs] of [
    [oslo, `oslo-a-${run}`, 20, 3],
    [oslo, `oslo-b-${run}`, 24, 4],
    [frankfurt, `fra-a-${run}`, 60, 25],
  ] as const) {
    const token = await enrollHost(request, key, hostname);
    await ingest(request, token, 3, () => ({ latency: [latencyOf('request', latencyMs)], probes: [probe(rttMs)] }));
  }
});

test('Oslo vs Frankfurt is one click from the fleet page, and its numbers are the API\'s', async ({ page, request }) => {
  await page.goto('/');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Regions' }).click();
  await expect(page).toHaveURL(/\/regions/);
  await expect(page.getByRole('button', { name: /^oslo/ })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('button', { name: /^frankfurt/ })).toHaveAttribute('aria-pressed', 'true');
  const summary = page.locator('table[aria-label="Region summary"]');
  await expect(summary.locator('tbody tr')).toHaveCount(2);
  await expect(page.locator('table[aria-label="Latency percentiles"]')).toBeVisible();

  const shown = await page.getByTestId('range-shown').locator('time').evaluateAll((els) => els.map((el) => el.getAttribute('datetime')!));
  const api = (await (await request.get(`/api/v1/regions/compare?from=${shown[0]}&to=${shown[1]}`)).json()) as RegionCompareResponse;
  for (const name of ['oslo', 'frankfurt']) {
    const region = api.regions.find((r) => r.region === name)!;
    await expect(summary.locator(`tr[data-region="${name}"] [data-metric="hosts"]`)).toHaveText(String(region.hostCount));
    for (const [label, key] of [['p50', 'p50'], ['p99', 'p99']] as const) {
      await expect(page.locator(`tr[data-quantile="${label}"] td[data-region="${name}"] [data-metric="value"]`)).toHaveText(formatMs(region.latency.request![key]));
    }
  }
  // Frankfurt is slower than Oslo here, so its difference reads as worse.
  await expect(page.locator('tr[data-quantile="p99"] td[data-region="frankfurt"] .delta-worse')).toBeVisible();
  const probeRow = page.locator('table[aria-label="Probe RTT"] tbody tr', { hasText: probeName });
  await expect(probeRow.locator('th')).toHaveText(probeName);
  await expect(page.locator('main u')).toHaveCount(0);
});

test('a shared link pins the range the sender saw', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto('/regions?range=6h');
  await expect(page.locator('table[aria-label="Region summary"] tbody tr')).toHaveCount(2);
  await expect(page.getByTestId('range-shown').locator('time')).toHaveCount(2);
  const shown = await page.getByTestId('range-shown').locator('time').evaluateAll((els) => els.map((el) => el.getAttribute('datetime')));
  await page.getByRole('button', { name: 'Copy link to this view' }).click();
  await expect(page.getByText(/Link copied|Copy this link/)).toBeVisible();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  expect(link).toContain('from=');
  await page.waitForTimeout(1100);
  await page.goto(link);
  await expect(page.getByText('(pinned)')).toBeVisible();
  await expect(page.getByTestId('range-shown').locator('time')).toHaveCount(2);
  const pinned = await page.getByTestId('range-shown').locator('time').evaluateAll((els) => els.map((el) => el.getAttribute('datetime')));
  expect(pinned).toEqual(shown);
  await page.reload();
  await expect(page.getByText('(pinned)')).toBeVisible();
});

test('picking regions is kept in the URL', async ({ page }) => {
  await page.goto('/regions');
  await page.getByRole('button', { name: /^frankfurt/ }).click();
  await expect(page.getByText('Pick at least two regions')).toBeVisible();
  await expect(page).toHaveURL(/regions=oslo/);
  await page.reload();
  await expect(page.getByRole('button', { name: /^frankfurt/ })).toHaveAttribute('aria-pressed', 'false');
  await expect(page.getByText('Pick at least two regions')).toBeVisible();
});

test('first-load JavaScript of the regions page stays under 300 kB gzip, and the chart draws', async ({ page }) => {
  const { firstLoadJsGzipBytes } = await import('./fleet-support');
  await page.emulateMedia({ colorScheme: 'dark' });
  const bytes = await firstLoadJsGzipBytes(page, '/regions');
  console.log(`regions page JS incl. the lazily loaded chart: ${(bytes / 1024).toFixed(1)} kB gzip`);
  await page.setViewportSize({ width: 1440, height: 900 });
  await expect(page.locator('.chart-box .recharts-area').first()).toBeVisible();
  expect(bytes).toBeLessThan(300 * 1024);
});
