// `npm run bench -- ui`: the dashboard against a 10,000-host database — the fleet API's time over HTTP, the fleet
// page's first contentful paint beside the app's simplest page (its 404) in the same run, the host page's 30-day
// charts, and each page's first-load JavaScript (gzip), all from the production server in Debian's Chromium.
// BENCH_UI_DATABASE_URL=<url> reuses a database an earlier `--keep` run left behind instead of generating one.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from '@playwright/test';
import playwrightConfig from '../playwright.config';
import { THIRTY_DAY_HOST_ID, adminStatement, createFleetDatabase } from './_fleet-database';
import { freePort } from '../tests/support/free-port';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
// The server's first findings and alert cycles over 10,000 hosts run right after start; measure after them.
const SETTLE_MS = Number(process.env.BENCH_UI_SETTLE_MS ?? 30_000);
const PORT = Number(process.env.BENCH_UI_PORT ?? (await freePort()));
const BASE = `http://127.0.0.1:${PORT}`;
const baseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const keep = process.argv.includes('--keep');
const HOST_30D_PATH = `/hosts/${THIRTY_DAY_HOST_ID}?range=30d&live=false`;
const EMPTY_PATH = '/bench-no-such-page';
// The host page's first time chart with data drawn: a Recharts surface inside a chart panel that has data.
const HOST_CHART_SELECTOR = 'figure.chart-panel[data-has-data="true"] .recharts-surface';
const PAGES: Record<string, string> = {
  fleet: '/',
  regions: '/regions',
  compare: '/compare',
  findings: '/findings',
  alerts: '/alerts',
  settings: '/settings',
  host_30d: HOST_30D_PATH,
  empty: EMPTY_PATH,
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (value: number, digits = 1) => Number(value.toFixed(digits));

async function waitForHealth(server: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
    const ok = await fetch(`${BASE}/api/health`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error('the server did not answer /api/health in time');
}

function startServer(databaseUrl: string): ChildProcess {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inferwatch-bench-ui-'));
  // `npm start` as an operator runs it: it builds the dashboard first if the build is older than the sources.
  const server = spawn('npm', ['start'], {
    cwd: path.resolve(import.meta.dirname, '..'),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      INFERWATCH_LOCAL_AGENT: '0',
      INFERWATCH_DEMO: '0',
      INFERWATCH_STATE_DIR: stateDir,
      NEXT_TELEMETRY_DISABLED: '1',
    },
  });
  const log = fs.createWriteStream(path.join(stateDir, 'server.log'));
  server.stdout!.pipe(log);
  server.stderr!.pipe(log);
  console.log(`server log: ${path.join(stateDir, 'server.log')}`);
  return server;
}

async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.pid === undefined) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  process.kill(-server.pid, 'SIGTERM');
  const timer = setTimeout(() => server.pid !== undefined && process.kill(-server.pid, 'SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

async function httpMs(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return performance.now() - started;
}

interface PaintTimes {
  /** First contentful paint, from the page's own paint entry. */
  fcp: number;
  /** The first byte of the HTML (the navigation entry's responseStart): what the server took before it sent any. */
  ttfb: number;
}

/** A cold visit (a new context: nothing cached): when its first byte came and when it first painted content. */
async function paintTimes(browser: Browser, pagePath: string): Promise<PaintTimes> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${BASE}${pagePath}`, { waitUntil: 'load' });
    const fcp = await page.evaluate(
      () =>
        new Promise<number | null>((resolve) => {
          new PerformanceObserver((list, observer) => {
            const entry = list.getEntriesByName('first-contentful-paint')[0];
            if (entry) {
              observer.disconnect();
              resolve(entry.startTime);
            }
          }).observe({ type: 'paint', buffered: true });
          setTimeout(() => resolve(null), 10_000);
        }),
    );
    if (fcp === null) throw new Error(`${pagePath}: no first-contentful-paint entry`);
    const ttfb = await page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).responseStart);
    return { fcp, ttfb };
  } finally {
    await context.close();
  }
}

/** From navigation start until the host page has drawn its first chart with data, and its slowest API read. */
async function host30dRender(browser: Browser): Promise<{ ms: number; slowestApi: { name: string; ms: number } }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${BASE}${HOST_30D_PATH}`, { waitUntil: 'commit' });
    await page.waitForSelector(HOST_CHART_SELECTOR, { timeout: 60_000 });
    return await page.evaluate(() => {
      const api = performance
        .getEntriesByType('resource')
        .filter((e) => new URL(e.name).pathname.startsWith('/api/'))
        .map((e) => ({ name: new URL(e.name).pathname, ms: Math.round(e.duration) }))
        .sort((a, b) => b.ms - a.ms);
      return { ms: performance.now(), slowestApi: api[0] ?? { name: 'none (all server-rendered)', ms: 0 } };
    });
  } finally {
    await context.close();
  }
}

/** The JavaScript a cold visit downloads until the network is idle, gzip-compressed as a server would send it. */
async function firstLoadJs(browser: Browser, pagePath: string): Promise<{ kb: number; files: number; status: number }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const bodies: Promise<Buffer | null>[] = [];
    page.on('response', (response) => {
      if (response.request().resourceType() === 'script') bodies.push(response.body().catch(() => null));
    });
    const response = await page.goto(`${BASE}${pagePath}`, { waitUntil: 'networkidle' });
    const scripts = (await Promise.all(bodies)).filter((b): b is Buffer => b !== null);
    return { kb: round(scripts.reduce((sum, b) => sum + gzipSync(b).length, 0) / 1024), files: scripts.length, status: response?.status() ?? 0 };
  } finally {
    await context.close();
  }
}

const reuseUrl = process.env.BENCH_UI_DATABASE_URL;
const database = reuseUrl ? { name: new URL(reuseUrl).pathname.slice(1), url: reuseUrl } : await createFleetDatabase(baseUrl, 'qbench_ui');
const server = startServer(database.url);
let browser: Browser | undefined;
try {
  await waitForHealth(server, 15 * 60_000);
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const fleetUrl = `${BASE}/api/v1/fleet?limit=50`;
  await httpMs(fleetUrl);
  const fleetRuns: number[] = [];
  for (let i = 0; i < RUNS; i++) fleetRuns.push(await httpMs(fleetUrl));

  const args = playwrightConfig.use?.launchOptions?.args ?? [];
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args });
  // One warm-up visit each (the server compiles nothing, but its caches and the database's fill), then alternate.
  await paintTimes(browser, PAGES.fleet!);
  await paintTimes(browser, EMPTY_PATH);
  const fleetPaints: PaintTimes[] = [];
  const emptyPaints: PaintTimes[] = [];
  for (let i = 0; i < RUNS; i++) {
    fleetPaints.push(await paintTimes(browser, PAGES.fleet!));
    emptyPaints.push(await paintTimes(browser, EMPTY_PATH));
  }
  const fleetFcp = fleetPaints.map((p) => p.fcp);
  const emptyFcp = emptyPaints.map((p) => p.fcp);
  await host30dRender(browser);
  const hostRuns: Awaited<ReturnType<typeof host30dRender>>[] = [];
  for (let i = 0; i < Math.max(3, Math.ceil(RUNS / 2)); i++) hostRuns.push(await host30dRender(browser));
  const hostMedian = median(hostRuns.map((r) => r.ms));
  const slowestApi = hostRuns.map((r) => r.slowestApi).sort((a, b) => a.ms - b.ms)[Math.floor(hostRuns.length / 2)]!;

  // A page that answers 404 here (not built yet) measures only the 404 page: it is reported as missing.
  const js: Record<string, { kb: number; files: number; status: number }> = {};
  for (const [name, pagePath] of Object.entries(PAGES)) js[name] = await firstLoadJs(browser, pagePath);
  const present = Object.entries(js).filter(([name, j]) => name === 'empty' || j.status === 200);

  const result = {
    fleet_server_ms: round(median(fleetRuns)),
    fleet_fcp_ms: round(median(fleetFcp)),
    empty_page_fcp_ms: round(median(emptyFcp)),
    fleet_fcp_ratio: round(median(fleetFcp) / median(emptyFcp), 2),
    fleet_ttfb_ms: round(median(fleetPaints.map((p) => p.ttfb))),
    empty_page_ttfb_ms: round(median(emptyPaints.map((p) => p.ttfb))),
    host_30d_render_ms: round(hostMedian),
    host_30d_slowest_api: slowestApi,
    first_load_js_kb: Math.max(...present.map(([, j]) => j.kb)),
    first_load_js_kb_by_page: Object.fromEntries(Object.entries(js).map(([name, j]) => [name, name === 'empty' || j.status === 200 ? j.kb : null])),
    hosts: THIRTY_DAY_HOST_ID,
    runs: RUNS,
  };
  console.log(`median of ${RUNS} runs each; cold visits (a new browser context each), ${THIRTY_DAY_HOST_ID} hosts`);
  console.log('| figure | value | reference in the same run |\n|---|---|---|');
  console.log(`| fleet_server_ms (GET /api/v1/fleet?limit=50 over loopback) | ${result.fleet_server_ms} | — |`);
  console.log(`| fleet_fcp_ms | ${result.fleet_fcp_ms} | empty_page_fcp_ms (the 404 page) ${result.empty_page_fcp_ms}: ×${result.fleet_fcp_ratio} |`);
  console.log(`| fleet_ttfb_ms (first byte of the HTML) | ${result.fleet_ttfb_ms} | the 404 page's: ${result.empty_page_ttfb_ms} |`);
  console.log(`| host_30d_render_ms (${HOST_30D_PATH}, first chart drawn) | ${result.host_30d_render_ms} | its slowest API read: ${slowestApi.name} ${slowestApi.ms} ms |`);
  for (const [name, j] of Object.entries(js)) {
    const value = name === 'empty' || j.status === 200 ? `${j.kb} (${j.files} files)` : `missing (${j.status})`;
    console.log(`| first_load_js_kb ${name} (${PAGES[name]}) | ${value} | empty page ${js.empty!.kb} |`);
  }
  if (process.env.BENCH_WRITE_JSON) fs.writeFileSync(process.env.BENCH_WRITE_JSON, JSON.stringify(result));
  console.log(JSON.stringify(result));
} finally {
  await browser?.close();
  await stopServer(server);
  if (!keep && !reuseUrl) await adminStatement(baseUrl, `DROP DATABASE IF EXISTS "${database.name}" WITH (FORCE)`);
  else console.log(`kept ${database.url}`);
}
