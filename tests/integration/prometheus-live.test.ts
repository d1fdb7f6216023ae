import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { POST as enroll } from '../../app/api/v1/enroll/route';
import { GET as metrics } from '../../app/metrics/route';
import { createChannel } from '../../lib/alerts';
import type { TargetPolicy } from '../../lib/alerts/channels/target-policy';
import { processSecretBox } from '../../lib/server/process-secret-box';
import { DEFAULT_ALERT_RULES } from '../../lib/alerts/default-rules';
import { ensureDefaultRules } from '../../lib/alerts/store/rules';
import { createEnrollmentKey } from '../../lib/auth/enrollment-keys';
import { closeDb, getDb } from '../../lib/db';
import { closeIngest, handleIngestHttp } from '../../lib/server/process-ingest';
import { eventually, stopProcess } from '../support/live-agent';
import { makeReport } from '../support/report-factory';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { SECRET_KEY } from './alerts-helpers';
import { freePort } from '../support/free-port';

/*
 * Debian's Prometheus scrapes the app's real /metrics on loopback, and PromQL reads back the steal a report sent
 * through the real ingest API. CI installs the package (`apt-get install -y prometheus`).
 */

// The receivers here listen on 127.0.0.1, which channels may send to only when the operator allows it.
const LOOPBACK_ALLOWED: TargetPolicy = { allowPrivate: true, allowedNetworks: [] };
let testDb: TestDatabase;
let server: http.Server;
let appUrl: string;
let prometheus: ChildProcess | undefined;
let prometheusUrl: string;
let prometheusLog = '';
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-prometheus-'));

/** The route handlers the test needs, on a loopback port: ingest as server.ts serves it, enroll and /metrics as Next does. */
function startAppServer(): Promise<http.Server> {
  const routes: Record<string, (request: Request) => Promise<Response>> = { '/api/v1/enroll': enroll, '/metrics': metrics };
  const app = http.createServer((req, res) => {
    if (req.url === '/api/v1/ingest') return void handleIngestHttp(req, res);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
      if (!route) return void res.writeHead(404).end();
      const body = req.method === 'GET' ? undefined : Buffer.concat(chunks);
      const response = await route(new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, body }));
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
  });
  return new Promise((resolve) => app.listen(0, '127.0.0.1', () => resolve(app)));
}

async function getJson<T>(url: string): Promise<T | undefined> {
  try {
    const response = await fetch(url);
    return response.ok ? ((await response.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}

interface TargetsAnswer {
  data: { activeTargets: { scrapeUrl: string; health: string; lastError: string; lastScrape: string }[] };
}
interface QueryAnswer {
  data: { result: { metric: Record<string, string>; value: [number, string] }[] };
}

const query = (promql: string) => getJson<QueryAnswer>(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);

beforeAll(async () => {
  if (spawnSync('sh', ['-c', 'command -v prometheus && command -v promtool']).status !== 0) {
    throw new Error('prometheus and promtool are missing: install them with `apt-get install -y prometheus` (CI installs it)');
  }
  testDb = await createTestDatabase();
  process.env.DATABASE_URL = testDb.url;
  process.env.INFERWATCH_SECRET_KEY = SECRET_KEY.toString('base64');
  const db = await getDb();
  // What a running server has besides hosts: the shipped alert rules and a channel, so every family has samples.
  await ensureDefaultRules(db.sql, DEFAULT_ALERT_RULES);
  await createChannel(db, processSecretBox(), { kind: 'webhook', name: 'ops', url: 'http://127.0.0.1:9/', secret: 'signing-secret-0123456789', minSeverity: 'info', matchers: [], enabled: true }, LOOPBACK_ALLOWED);
  server = await startAppServer();
  appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  const config = path.join(workDir, 'prometheus.yml');
  fs.writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      '  - job_name: inferwatch',
      `    static_configs: [{ targets: ['${new URL(appUrl).host}'] }]`,
      '',
    ].join('\n'),
  );
  prometheus = spawn(
    'prometheus',
    [`--config.file=${config}`, `--storage.tsdb.path=${path.join(workDir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  prometheus.stderr!.on('data', (chunk: Buffer) => (prometheusLog += chunk.toString()));
  await eventually(`Prometheus to be ready (${prometheusLog})`, async () => ((await fetch(`${prometheusUrl}/-/ready`).catch(() => null))?.ok ? true : undefined));
});

afterAll(async () => {
  await stopProcess(prometheus);
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await closeIngest();
  await closeDb();
  await testDb?.drop();
  fs.rmSync(workDir, { recursive: true, force: true });
});

describe("Prometheus scraping the app's /metrics", () => {
  let hostId: number;

  test('scrapes the target without an error', async () => {
    const target = await eventually('the first scrape', async () => {
      const answer = await getJson<TargetsAnswer>(`${prometheusUrl}/api/v1/targets`);
      return answer?.data.activeTargets.find((t) => t.health === 'up');
    });
    expect(target.scrapeUrl).toBe(`${appUrl}/metrics`);
    expect(target.lastError).toBe('');
  });

  test('reads back through PromQL the steal of a report sent through the ingest API', async () => {
    const key = (await createEnrollmentKey(await getDb(), { name: 'prometheus', region: 'oslo', labels: {} })).key;
    const enrolled = await fetch(`${appUrl}/api/v1/enroll`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ hostname: 'gpu-prom', machineId: null }),
    });
    expect(enrolled.status).toBe(200);
    const { hostId: id, token } = (await enrolled.json()) as { hostId: number; token: string };
    hostId = id;
    const report = makeReport({ seq: 0, ts: Date.now() - 5_000 });
    const cpu = report.cpu as Extract<typeof report.cpu, { total: unknown }>;
    const sent = await fetch(`${appUrl}/api/v1/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...report, cpu: { ...cpu, total: { ...cpu.total, stealPct: 12.5, idlePct: 36.5 } } }),
    });
    expect(sent.status).toBe(200);

    const series = await eventually('a scrape that holds the host', async () => {
      const answer = await query(`inferwatch_host_cpu_steal_ratio{host_id="${hostId}"}`);
      return answer?.data.result[0];
    });
    expect(series.metric).toMatchObject({ job: 'inferwatch', host: 'gpu-prom', region: 'oslo' });
    expect(Number(series.value[1])).toBeCloseTo(0.125, 10);
    const up = await query(`inferwatch_host_up{host_id="${hostId}"}`);
    expect(up?.data.result[0]?.value[1]).toBe('1');
  });

  test("the app's real /metrics passes promtool check metrics", async () => {
    const text = await (await fetch(`${appUrl}/metrics`)).text();
    // Every family of the exposition is there to be checked, with samples.
    for (const family of ['inferwatch_host_cpu_steal_ratio', 'inferwatch_alerts_firing', 'inferwatch_alert_notification_failures_total', 'inferwatch_ingest_requests_total']) {
      expect(text).toMatch(new RegExp(`^${family}\\{`, 'm'));
    }
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(`${check.stdout}${check.stderr}`).toBe('');
    expect(check.status).toBe(0);
  });
});
