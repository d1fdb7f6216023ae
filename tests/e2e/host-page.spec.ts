import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { LatencySketch } from '../../lib/sketch';
import type { Inventory, Report } from '../../lib/protocol';
import { cleanCpu, cleanInventory, watchedProcess } from '../support/findings-facts';
import { makeReport } from '../support/report-factory';

const stateDir = process.env.E2E_STATE_DIR!;
const MIN = 60_000;
// Everything an agent sends is untrusted: markup in its names must show as text.
const HOSTNAME = `e2e-host-${randomBytes(3).toString('hex')}<img src=x onerror="window.__xss=1">`;
const LATENCY_NAME = '<b>bold</b>-req';
const PROCESS_NAME = '<script>window.__xss=2</script>serve';
const ENV_VALUE = '<i>4</i>';

async function enroll(request: APIRequestContext, hostname: string): Promise<{ token: string; hostId: number }> {
  const key = fs.readFileSync(path.join(stateDir, 'local-enroll-key'), 'utf8').trim();
  const response = await request.post('/api/v1/enroll', { headers: { Authorization: `Bearer ${key}` }, data: { hostname, machineId: null } });
  expect(response.status()).toBe(200);
  return (await response.json()) as { token: string; hostId: number };
}

// Before: a KVM guest whose CPU model hides AVX2 and FMA (a finding with a remedy); half an hour ago: a new kernel.
const before: Inventory = cleanInventory({
  hash: 'e2e-v1',
  cpu: cleanCpu({ model: 'QEMU Virtual CPU version 2.5+', flags: ['fpu', 'sse4_2', 'avx', 'hypervisor'] }),
  processes: [
    watchedProcess({
      name: PROCESS_NAME,
      env: { OMP_NUM_THREADS: ENV_VALUE },
      container: {
        runtime: 'containerd',
        id: '25d057a4c6c9555f2a0eb106e8896968c28f1c44aca4754174851aca7f89ad26',
        pod: { uid: '9493223b-520e-4a97-a45f-359dcf967006', qosClass: 'burstable' },
      },
    }),
  ],
});
const after: Inventory = { ...before, hash: 'e2e-v2', host: { ...before.host, kernel: '6.8.0-40-amd64' } };

function reports(endMs: number): Report[] {
  const count = 180;
  return Array.from({ length: count }, (_, i) => {
    const ts = endMs - (count - 1 - i) * 20_000;
    const sketch = new LatencySketch();
    for (let j = 0; j < 20; j++) sketch.add(20 + ((i * 7 + j * 13) % 40) + (i > 120 ? 60 : 0));
    const base = makeReport({ seq: i + 1, ts, host: { hostname: HOSTNAME, machineId: null } });
    const cpu = base.cpu as Exclude<Report['cpu'], { unavailable: string }>;
    cpu.total.stealPct = 2 + (i % 30) / 3;
    cpu.total.idlePct = 40 - cpu.total.stealPct;
    return {
      ...base,
      cpu,
      latency: [{ name: LATENCY_NAME, tags: {}, sketch: sketch.toWire() }],
      ...(i === 0 ? { inventory: before } : i === 90 ? { inventory: after } : {}),
    };
  });
}

let hostId = 0;

test.beforeAll(async ({ playwright }, testInfo) => {
  const request = await playwright.request.newContext({ baseURL: testInfo.project.use.baseURL });
  const host = await enroll(request, HOSTNAME);
  hostId = host.hostId;
  const response = await request.post('/api/v1/ingest', { headers: { Authorization: `Bearer ${host.token}` }, data: { reports: reports(Date.now()) } });
  expect(response.status()).toBe(200);
  // The findings engine judges a new inventory within its poll (10 s).
  await expect
    .poll(async () => {
      const findings = await (await request.get(`/api/v1/hosts/${hostId}/findings`)).json();
      return findings.findings.map((f: { ruleId: string }) => f.ruleId);
    }, { timeout: 45_000 })
    .toContain('cpu.avx2-missing');
  await request.dispose();
});

async function openHost(page: Page, query = '') {
  await page.goto(`/hosts/${hostId}${query}`);
  await expect(page.getByTestId('hostname')).toHaveText(HOSTNAME);
}

test('the host page charts its series with an inventory-change mark, and shows the finding with its remedy', async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 1800 });
  await openHost(page);
  const cpu = page.getByTestId('chart-cpu');
  await expect(cpu.locator('.recharts-area-area').first()).toBeVisible({ timeout: 30_000 });
  await expect(cpu.locator('.recharts-area-area')).toHaveCount(4);
  // An hour of reports 20 s apart: each area is a path through every one of them, not a scatter of gaps.
  const segments = async (path: string) => ((await cpu.locator(path).first().getAttribute('d')) ?? '').split('L').length;
  expect(await segments('.recharts-area-curve')).toBeGreaterThan(150);
  await expect(cpu.locator('[data-annotation-kind="inventory"]')).toHaveCount(1);
  await expect(page.locator('li[data-annotation-kind="inventory"]')).toContainText('kernel 6.1.0-18-amd64 → 6.8.0-40-amd64');
  await expect(page.locator('li[data-annotation-kind="finding-opened"]').filter({ hasText: 'CPU without AVX2/FMA' })).toHaveCount(1);
  await expect(cpu.locator('[data-annotation-kind="finding-opened"]').first()).toBeAttached();

  const finding = page.locator('[data-rule="cpu.avx2-missing"]').first();
  await expect(finding.getByTestId('finding-remedy')).toContainText("Give the guest the host's CPU model");
  await expect(finding.locator('.evidence-values')).toContainText('avx2 fma');

  await expect(page.locator('[data-flag="AVX2"]')).toHaveAttribute('data-present', 'false');
  await expect(page.locator('[data-flag="AVX-512"]')).toHaveAttribute('data-present', 'false');
  await expect(page.getByTestId('inventory-history')).toContainText('kernel 6.1.0-18-amd64 → 6.8.0-40-amd64');

  const latency = page.getByTestId('chart-latency');
  await expect(latency.locator('.recharts-area-curve').first()).toBeVisible({ timeout: 30_000 });
  await expect(latency.locator('.recharts-area-curve')).toHaveCount(3);
});

test('an empty chart says whether the host sent no report in the range or reported without what it draws', async ({ page }) => {
  // Its reports carry no PSI (pressure: unavailable): the chart says so for a range with reports…
  await openHost(page);
  const pressure = page.getByTestId('chart-pressure');
  await expect(pressure).toContainText('Its reports in this range carry no pressure stall information', { timeout: 30_000 });
  // …and a range before its first report is no data, with the newest report's time, not a kernel without PSI.
  const toMs = Date.now() - 3 * 60 * MIN;
  await openHost(page, `?from=${new Date(toMs - 60 * MIN).toISOString()}&to=${new Date(toMs).toISOString()}&live=false`);
  await expect(pressure).toContainText('No data in this range: this host sent no report in it. Its newest report is from', { timeout: 30_000 });
  await expect(pressure).not.toContainText('pressure stall');
  await expect(page.getByTestId('chart-cpu')).toContainText('No data in this range');
});

test('markup in the hostname, latency series, process name and env values is shown as text', async ({ page }) => {
  await openHost(page);
  await expect(page.getByTestId('chart-latency').locator('h3')).toHaveText(`Latency: ${LATENCY_NAME}`);
  await expect(page.getByTestId('chart-latency').locator('h3 b')).toHaveCount(0);
  const process = page.locator('.process').first();
  await expect(process.locator('h4')).toContainText(PROCESS_NAME);
  await expect(process.locator('.env-list')).toHaveText(`OMP_NUM_THREADS=${ENV_VALUE}`);
  await expect(process.getByTestId('process-container')).toHaveText('25d057a4c6c9 (containerd)');
  await expect(process.getByTestId('process-pod')).toHaveText('9493223b-520e-4a97-a45f-359dcf967006, QoS Burstable');
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
});

test('dragging across a chart zooms every chart to that range, in the URL, and Back undoes it', async ({ page }) => {
  // Paused, so no poll redraws the chart under the pointer mid-drag.
  await openHost(page, '?live=false');
  const surface = page.getByTestId('chart-cpu').locator('.recharts-wrapper > svg.recharts-surface');
  await expect(page.getByTestId('chart-cpu').locator('.recharts-area-area').first()).toBeVisible({ timeout: 30_000 });
  // Every section has loaded (nothing above the chart will move it), then press where the crosshair is, as a person
  // does: hover until the tooltip shows, then drag.
  await expect(page.getByTestId('chart-latency').locator('.recharts-area-curve').first()).toBeVisible({ timeout: 30_000 });
  await page.waitForLoadState('networkidle');
  const size = (await surface.boundingBox())!;
  await surface.hover({ position: { x: size.width * 0.35, y: size.height * 0.4 } });
  await expect(page.getByTestId('chart-cpu').locator('.chart-tooltip')).toBeVisible();
  const box = (await surface.boundingBox())!;
  const y = box.y + box.height * 0.4;
  await page.mouse.down();
  for (let step = 1; step <= 10; step++) await page.mouse.move(box.x + box.width * (0.35 + 0.04 * step), y);
  await expect(page.getByTestId('chart-cpu').locator('.zoom-selection')).toBeVisible();
  await page.mouse.up();
  await expect(page).toHaveURL(/[?&]from=/);
  const url = new URL(page.url());
  const fromMs = Date.parse(url.searchParams.get('from')!);
  const toMs = Date.parse(url.searchParams.get('to')!);
  expect(toMs - fromMs).toBeGreaterThanOrEqual(MIN);
  expect(toMs - fromMs).toBeLessThan(50 * MIN);
  await expect(page.getByTestId('range-shown')).toContainText('(pinned)');
  const shown = await page.getByTestId('range-shown').textContent();
  await expect(page.getByTestId('chart-cpu').locator('.recharts-area-area').first()).toBeVisible();

  await page.reload();
  expect(new URL(page.url()).searchParams.get('from')).toBe(url.searchParams.get('from'));
  await expect(page.getByTestId('range-shown')).toHaveText(shown!);

  await page.goBack();
  await expect(page).not.toHaveURL(/[?&]from=/);
  await expect(page).toHaveURL(/[?&]live=false/);
});

test('the range, overlay and latency choice survive a reload; a share link pins a relative range', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await openHost(page, '?range=6h&lastWeek=true');
  await expect(page.getByRole('button', { name: '6 h', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await page.reload();
  await expect(page.getByRole('button', { name: '6 h', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByRole('button', { name: 'Same range last week' })).toHaveAttribute('aria-pressed', 'true');
  // Nothing was recorded a week before this host enrolled, and the chart says so rather than drawing nothing.
  await expect(page.getByTestId('chart-cpu')).toContainText('Nothing recorded in the same range a week earlier', { timeout: 30_000 });

  await page.getByRole('button', { name: 'Copy link to this view' }).click();
  await expect(page.getByText('Link copied')).toBeVisible();
  const link = new URL(await page.evaluate(() => navigator.clipboard.readText()));
  const span = Date.parse(link.searchParams.get('to')!) - Date.parse(link.searchParams.get('from')!);
  expect(span).toBe(6 * 60 * MIN);
  expect(link.searchParams.get('lastWeek')).toBe('true');
});

test('an unknown host says so and leads back to the fleet', async ({ page }) => {
  const response = await page.goto('/hosts/987654321');
  expect(response?.status()).toBe(404);
  await expect(page.getByText('No such host.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'fleet page' })).toHaveAttribute('href', '/');
});
