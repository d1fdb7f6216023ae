import { expect, test } from '@playwright/test';
import { screenshotIfAsked } from './screenshots';

test('the API page lists every operation of /api/openapi.json by tag, with its token, parameters and answers', async ({ page, request }) => {
  const response = await request.get('/api/openapi.json');
  expect(response.status()).toBe(200);
  const document = (await response.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
  expect(document.openapi).toBe('3.1.0');
  const operations = Object.values(document.paths).flatMap((item) => Object.keys(item));

  await page.goto('/settings');
  await page.getByRole('link', { name: 'HTTP API reference' }).click();
  await expect(page).toHaveURL(/\/settings\/api$/);
  await expect(page.getByRole('heading', { level: 1, name: 'HTTP API' })).toBeVisible();
  await expect(page.locator('article.api-operation')).toHaveCount(operations.length);

  const ingest = page.getByRole('article', { name: 'POST /api/v1/ingest' });
  await expect(ingest).toContainText('Authorization: Bearer host token');
  await expect(ingest).toContainText('Report | { reports: Report[] }');
  await expect(ingest.getByRole('row', { name: /^429/ })).toContainText('rate_limited');
  const fleet = page.getByRole('article', { name: 'GET /api/v1/fleet' });
  await expect(fleet.getByRole('row', { name: /^status/ })).toContainText('(comma-separated)');
  await page.getByRole('navigation', { name: 'API sections' }).getByRole('link', { name: /^alerts/ }).click();
  await expect(page).toHaveURL(/#tag-alerts$/);
  await screenshotIfAsked(page, 'api', { fullPage: false });
});
