import { expect, test } from '@playwright/test';
import { createEnrollmentKey, enrollHost, ingest, latencySeries, stealReports } from '../support/e2e-fleet';

// What surrounds every page: an unknown address, the tab's icon, and charts and docs that must show what they hold.

test('an unknown address gets the app’s own not-found page, inside its navigation, and so does an unknown host', async ({ page }) => {
  const response = await page.goto('/no-such-page');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Not found');
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Fleet' })).toBeVisible();
  await expect(page.locator('main').getByRole('link', { name: 'Findings' })).toHaveAttribute('href', '/findings');

  const host = await page.goto('/hosts/999999');
  expect(host?.status()).toBe(404);
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Fleet' })).toBeVisible();
  await expect(page.locator('main')).toContainText('No such host.');
});

test('the tab has an icon, served before sign-in too', async ({ page, request, baseURL }) => {
  await page.goto('/');
  const href = await page.locator('link[rel="icon"][type="image/svg+xml"]').getAttribute('href');
  expect(href).toMatch(/^\/icon\.svg/);
  // A Host that is not loopback is nobody signed in (see exposed.spec.ts): the sign-in page's tab needs its icon too.
  const anonymous = { Host: `iw.test:${new URL(baseURL!).port}` };
  expect((await request.get('/regions', { headers: anonymous, maxRedirects: 0 })).status()).toBe(302);
  for (const [path, type] of [[href!, 'image/svg+xml'], ['/favicon.ico', 'image/x-icon']] as const) {
    const response = await request.get(path, { headers: anonymous, maxRedirects: 0 });
    expect(response.status(), path).toBe(200);
    expect(response.headers()['content-type'], path).toContain(type);
  }
});

test('one batch of timings in a range of gaps is drawn as dots, not as an empty latency chart', async ({ page, request }) => {
  const key = await createEnrollmentKey(request, { name: `shell-${Date.now().toString(36)}`, region: 'oslo' });
  const host = await enrollHost(request, key, `one-batch-${Date.now().toString(36)}`);
  const reports = stealReports(30, 1);
  reports[15] = { ...reports[15]!, latency: [latencySeries('predict', Array.from({ length: 1001 }, (_, i) => 5 + (i % 100)))] };
  await ingest(request, host, reports);
  await page.goto(`/hosts/${host.hostId}`);
  const chart = page.getByTestId('chart-latency');
  // p50, p95 and p99 of the one bucket with requests.
  await expect(chart.locator('.isolated-point')).toHaveCount(3, { timeout: 30_000 });
});

test('a rule reference’s table fits its column: long identifiers wrap instead of running off it', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto('/findings?rule=threads.oversubscribed&state=all');
  const table = page.getByTestId('rule-reference').locator('.table-wrap').first();
  await expect(table).toBeVisible({ timeout: 30_000 });
  const { client, scroll } = await table.evaluate((e) => ({ client: e.clientWidth, scroll: e.scrollWidth }));
  expect(scroll).toBeLessThanOrEqual(client);
});
