import { expect, test, type Page } from '@playwright/test';
import type { FindingsResponse } from '../../lib/protocol/findings';
import type { AlertsResponse } from '../../lib/protocol/alerts';
import { loaded, watchedProcess } from '../support/findings-facts';
import { createEnrollmentKey, createStealRule, enrollHost, ingest, inventoryWithoutAvx2, latencySeries, stealReports } from '../support/e2e-fleet';

// Everything an agent sends is untrusted: a hostname, label values (from the key it enrolled with), process names and
// latency names with markup, and the finding messages that quote them, must reach every page as text.
const HOSTNAME = '<img src=x onerror=alert(1)>';
const LABEL = '<script>alert("label")</script>';
const PROCESS = '<svg onload=alert(3)>';
const LATENCY = '<b onmouseover=alert(4)>infer</b>';

async function injectedElements(page: Page): Promise<number> {
  return page.evaluate(
    () => document.querySelectorAll('img[src="x"], svg[onload], [onerror], [onload], [onmouseover], b[onmouseover]').length,
  );
}

test('markup in agent-sent names is shown as text on every page, and no script runs', async ({ page, request }) => {
  const dialogs: string[] = [];
  // Every page runs under a script policy with a per-response nonce: none of its own scripts may be refused.
  const refused: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) refused.push(`${page.url()}: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const suffix = Date.now().toString(36);
  const key = await createEnrollmentKey(request, { name: `hostile-${suffix}`, region: 'oslo', labels: { team: LABEL } });
  const host = await enrollHost(request, key, HOSTNAME);
  await createStealRule(request, { id: `e2e-hostile-${suffix}`, title: 'Hostile host steal', hostIds: [host.hostId] });
  const tf = watchedProcess({ name: PROCESS, comm: 'tensorflow_mode', env: { TF_NUM_INTRAOP_THREADS: '8' }, runtimes: loaded('tensorflow', 'onednn') });
  const reports = stealReports(4, 40);
  reports[0]!.inventory = inventoryWithoutAvx2({ processes: [tf] });
  for (const report of reports) {
    report.latency = [latencySeries(LATENCY, [8, 9, 10, 12, 15, 40])];
    report.processes = [{ name: PROCESS, pid: tf.pid, threads: 12, cpuCores: 0.5, rssBytes: 1e9, voluntaryCtxSwitchesPerS: 10, nonvoluntaryCtxSwitchesPerS: 1 }];
  }
  await ingest(request, host, reports);

  await expect
    .poll(async () => {
      const findings = (await (await request.get(`/api/v1/findings?host=${host.hostId}`)).json()) as FindingsResponse;
      return findings.findings.map((f) => f.ruleId).sort();
    }, { timeout: 45_000 })
    .toEqual(expect.arrayContaining(['cpu.avx2-missing', 'threads.tf-inter-op']));
  await expect
    .poll(async () => ((await (await request.get(`/api/v1/alerts?state=firing&host=${host.hostId}`)).json()) as AlertsResponse).alerts.length, { timeout: 40_000 })
    .toBeGreaterThan(0);

  const pages: { path: string; texts: string[] }[] = [
    { path: `/?q=${encodeURIComponent('onerror')}`, texts: [HOSTNAME, `team=${LABEL}`] },
    { path: '/findings?rule=threads.tf-inter-op', texts: [HOSTNAME, PROCESS] },
    { path: '/findings?rule=cpu.avx2-missing', texts: [HOSTNAME] },
    { path: '/alerts', texts: [HOSTNAME] },
    { path: `/hosts/${host.hostId}`, texts: [HOSTNAME] },
    { path: '/regions', texts: [] },
    { path: '/compare', texts: [] },
    { path: '/settings', texts: [] },
  ];
  for (const { path, texts } of pages) {
    const response = await page.goto(path);
    expect(response?.headers()['content-security-policy'], `${path}'s script policy`).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
    await expect(page.locator('main')).not.toBeEmpty();
    for (const text of texts) await expect(page.getByText(text, { exact: false }).first(), `${path} shows ${text}`).toBeVisible({ timeout: 20_000 });
    await page.waitForLoadState('networkidle');
    expect(await injectedElements(page), `${path} has no element made from agent text`).toBe(0);
  }
  // The fleet page offers the latency series by name: the option's text is the name, markup and all.
  await page.goto('/');
  await expect(page.locator('option', { hasText: LATENCY })).toHaveText(LATENCY);
  expect(dialogs).toEqual([]);
  expect(refused).toEqual([]);
});
