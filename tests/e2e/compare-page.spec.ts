import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect, test } from '@playwright/test';
import type { Report } from '../../lib/protocol';
import { makeReport } from '../support/report-factory';
import { screenshotIfAsked } from './screenshots';

const stateDir = process.env.E2E_STATE_DIR!;
const RUN = randomBytes(3).toString('hex');
// Steal per host: the chart ranks them highest first. One name carries markup, which must show as text.
const HOSTS = [
  { hostname: `e2e-cmp-${RUN}-calm`, stealPct: 1 },
  { hostname: `e2e-cmp-${RUN}-<u>noisy</u>`, stealPct: 18 },
  { hostname: `e2e-cmp-${RUN}-busy`, stealPct: 7 },
];
const ids: number[] = [];

function reports(hostname: string, stealPct: number, endMs: number): Report[] {
  return Array.from({ length: 60 }, (_, i) => {
    const base = makeReport({ seq: i + 1, ts: endMs - (59 - i) * 10_000, host: { hostname, machineId: null } });
    const cpu = base.cpu as Exclude<Report['cpu'], { unavailable: string }>;
    cpu.total.stealPct = stealPct + (i % 3);
    cpu.total.idlePct = 45 - cpu.total.stealPct;
    return { ...base, cpu };
  });
}

test.beforeAll(async ({ playwright }, testInfo) => {
  const request = await playwright.request.newContext({ baseURL: testInfo.project.use.baseURL });
  const key = fs.readFileSync(path.join(stateDir, 'local-enroll-key'), 'utf8').trim();
  const now = Date.now();
  for (const host of HOSTS) {
    const enrolled = await request.post('/api/v1/enroll', { headers: { Authorization: `Bearer ${key}` }, data: { hostname: host.hostname, machineId: null } });
    expect(enrolled.status()).toBe(200);
    const { token, hostId } = (await enrolled.json()) as { token: string; hostId: number };
    ids.push(hostId);
    const ingested = await request.post('/api/v1/ingest', { headers: { Authorization: `Bearer ${token}` }, data: { reports: reports(host.hostname, host.stealPct, now) } });
    expect(ingested.status()).toBe(200);
  }
  await request.dispose();
});

test('picked hosts share one chart, one line each, ranked highest first, names shown as text', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 1100 });
  await page.goto(`/compare?by=hosts&hosts=${ids.join(',')}&metric=cpu_steal&range=15m`);
  const chart = page.getByTestId('compare-chart');
  await expect(chart.locator('.recharts-area-curve').first()).toBeVisible({ timeout: 30_000 });
  await expect(chart.locator('.recharts-area-curve')).toHaveCount(3);
  await expect(chart).toContainText('All 3 hosts picked with data, by their average.');
  const rows = page.locator('table[aria-label="Hosts compared"] tbody tr');
  await expect(rows).toHaveCount(3);
  await expect(rows.locator('.host-link')).toHaveText([HOSTS[1]!.hostname, HOSTS[2]!.hostname, HOSTS[0]!.hostname]);
  await expect(page.locator('table u')).toHaveCount(0);
  await screenshotIfAsked(page, 'compare');

  // The host link carries the range the chart showed, pinned.
  const href = await rows.first().locator('.host-link').getAttribute('href');
  expect(new URL(href!, 'http://x').searchParams.get('from')).not.toBeNull();
});

test('the cap says how many hosts it leaves out, and the choice survives a reload', async ({ page }) => {
  await page.goto(`/compare?by=hosts&hosts=${ids.join(',')}&metric=cpu_steal&range=15m&limit=2`);
  const chart = page.getByTestId('compare-chart');
  await expect(chart.locator('.recharts-area-curve')).toHaveCount(2, { timeout: 30_000 });
  await expect(chart).toContainText('Top 2 of 3 hosts picked with data, by their average.');
  await page.getByLabel('Rank by').selectOption('max');
  await expect(chart).toContainText('by their peak');
  await page.reload();
  await expect(page.getByLabel('Rank by')).toHaveValue('max');
  await expect(page.getByLabel('Show at most')).toHaveValue('2');
  await expect(chart).toContainText('Top 2 of 3 hosts picked with data, by their peak.');
});
