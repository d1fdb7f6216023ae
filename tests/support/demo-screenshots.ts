// `npm run screenshots` (with the specs that picture alerts, compare, settings and the API page): the README's hero
// pictures — fleet, host, regions, findings — from the demo fleet a first `npm start` shows, not from test fixtures.
// Starts the built server on an embedded database of its own, waits for the demo's backfill and its findings, and
// writes docs/screenshots/{fleet,host,regions,findings,slo}.png, and llm-kv.png and llm-token-mean.png: the LLM
// engine charts of the demo's vLLM host with too little KV cache and of its llama.cpp host.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { demoFleet } from '../../lib/demo/fleet';
import type { FleetPage } from '../../lib/protocol/read-api/fleet';
import { freePort } from './free-port';

const NOISY_HOST = 'oslo-inf-04';
const KV_HOST = 'sto-llm-03';
const LLAMA_CPP_HOST = 'sto-llm-05';
const TIMEOUT_MS = 15 * 60_000;

const root = process.cwd();
const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-screenshots-'));
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const server = spawn(process.execPath, ['scripts/start.mjs'], {
  cwd: root,
  detached: true,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: '', INFERWATCH_STATE_DIR: stateDir, INFERWATCH_DATA_DIR: path.join(stateDir, 'data') },
});
let backfilled = false;
server.stdout!.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk);
  if (chunk.toString().includes('its history is backfilled')) backfilled = true;
});

async function until(what: string, ready: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS;
  while (!(await Promise.resolve().then(ready).catch(() => false))) {
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`screenshots: gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

const fleet = async () => ((await (await fetch(`${url}/api/v1/fleet?limit=100`)).json()) as FleetPage).hosts;

try {
  await until('the demo backfill', () => backfilled);
  // Every host the demo plants a condition on shows its finding (some need minutes of samples).
  const planted = new Set(demoFleet({ epochMs: Date.now() }).filter((h) => h.condition !== null).map((h) => h.hostname));
  await until("the demo's findings", async () => (await fleet()).filter((h) => planted.has(h.hostname) && h.topFinding !== null).length === planted.size);
  const hostId = async (hostname: string) => (await fleet()).find((h) => h.hostname === hostname)!.id;
  const noisy = { id: await hostId(NOISY_HOST) };
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, colorScheme: 'light' });
  const shots: [name: string, pathname: string, fullPage: boolean][] = [
    ['fleet', '/', false],
    ['host', `/hosts/${noisy.id}?range=1h`, true],
    ['regions', '/regions', true],
    ['findings', '/findings', false],
    ['slo', '/slo', true],
  ];
  const show = async (pathname: string) => {
    await page.goto(`${url}${pathname}`);
    await page.waitForLoadState('networkidle');
    // Charts animate in.
    await page.waitForTimeout(1_500);
  };
  const saved = (name: string) => {
    console.log(`screenshots: docs/screenshots/${name}.png`);
    return path.join(root, 'docs', 'screenshots', `${name}.png`);
  };
  for (const [name, pathname, fullPage] of shots) {
    await show(pathname);
    await page.screenshot({ path: saved(name), fullPage });
  }
  // The host page's LLM engine charts, cut out of the page: the charts only, as they stand in it.
  const charts: [name: string, hostname: string, ids: string[]][] = [
    ['llm-kv', KV_HOST, ['server-queue', 'server-kv-cache', 'server-preemptions']],
    ['llm-token-mean', LLAMA_CPP_HOST, ['server-token-mean']],
  ];
  for (const [name, hostname, ids] of charts) {
    // The host page keeps polling its live charts, so the network is never idle: wait for these charts' data instead.
    await page.goto(`${url}/hosts/${await hostId(hostname)}?range=1h`);
    for (const id of ids) await page.locator(`[data-testid="chart-${id}"][data-has-data="true"]`).waitFor({ timeout: 60_000 });
    await page.waitForTimeout(1_500);
    const boxes = await Promise.all(ids.map(async (id) => (await page.getByTestId(`chart-${id}`).boundingBox())!));
    const scrollY = await page.evaluate(() => window.scrollY);
    const [x, y] = [Math.min(...boxes.map((b) => b.x)), Math.min(...boxes.map((b) => b.y))];
    const clip = { x, y: y + scrollY, width: Math.max(...boxes.map((b) => b.x + b.width)) - x, height: Math.max(...boxes.map((b) => b.y + b.height)) - y };
    await page.screenshot({ path: saved(name), fullPage: true, clip });
  }
  await browser.close();
} finally {
  process.kill(-server.pid!, 'SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  fs.rmSync(stateDir, { recursive: true, force: true });
}
