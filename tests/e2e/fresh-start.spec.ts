import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { makeReport } from '../support/report-factory';

const stateDir = process.env.E2E_STATE_DIR!;

async function enrollTestHost(request: APIRequestContext): Promise<string> {
  const key = fs.readFileSync(path.join(stateDir, 'local-enroll-key'), 'utf8').trim();
  const response = await request.post('/api/v1/enroll', {
    headers: { Authorization: `Bearer ${key}` },
    data: { hostname: `e2e-${Date.now()}`, machineId: null },
  });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

test('a fresh npm start is healthy on the embedded database', async ({ request }) => {
  const response = await request.get('/api/health');
  expect(response.status()).toBe(200);
  const health = await response.json();
  expect(health).toMatchObject({ status: 'ok', database: { kind: 'embedded', ok: true } });
  expect(health.version).toMatch(/^\d+\.\d+\.\d+/);
});

test('the home page shows this machine, reported by the local agent, with its steal %', async ({ page }) => {
  await page.goto('/');
  const row = page.locator(`tr[data-host="${os.hostname()}"]`);
  await expect(row).toBeVisible({ timeout: 45_000 });
  await expect(row.locator('[data-metric="steal"]')).toHaveText(/^\d+\.\d %$/, { timeout: 45_000 });
  await expect(row.getByText('reporting')).toBeVisible();
});

test('an invalid report gets 400 naming the field, and nothing of it is stored', async ({ request }) => {
  const token = await enrollTestHost(request);
  const headers = { Authorization: `Bearer ${token}` };
  const valid = makeReport({ seq: 7 });
  const invalid = structuredClone(valid);
  (invalid.cpu as { total: { stealPct: number } }).total.stealPct = 140;

  const rejected = await request.post('/api/v1/ingest', { headers, data: invalid });
  expect(rejected.status()).toBe(400);
  const envelope = await rejected.json();
  expect(envelope.error.code).toBe('invalid_payload');
  expect(envelope.error.details).toContainEqual(expect.objectContaining({ path: 'cpu.total.stealPct' }));

  // Had any part of the rejected report been stored, its seq would now come back as a duplicate.
  const accepted = await request.post('/api/v1/ingest', { headers, data: valid });
  expect(accepted.status()).toBe(200);
  expect(await accepted.json()).toMatchObject({ accepted: 1, duplicate: 0, acknowledgedSeqs: [7] });

  const replayed = await request.post('/api/v1/ingest', { headers, data: valid });
  expect(await replayed.json()).toMatchObject({ accepted: 0, duplicate: 1 });
});
