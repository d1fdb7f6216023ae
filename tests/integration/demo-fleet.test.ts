import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CONDITIONS, DEMO_LABELS, REGION_SHOWS } from '../../lib/demo/fleet';
import { httpPoster } from '../../lib/demo/http-post';
import { DemoRunner } from '../../lib/demo/runner';
import type { DemoState, DemoStateStore } from '../../lib/demo/state';
import { FakeClock } from '../unit/demo/fake-clock';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { rowsOf } from '../support/rows';

const MIN = 60_000;

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase('iw_demo');
  // The ingest path uses the process's one database, chosen by DATABASE_URL like the real server.
  process.env.DATABASE_URL = testDb.url;
});
afterAll(async () => {
  const { closeIngest } = await import('../../lib/server/process-ingest');
  const { closeDb } = await import('../../lib/db');
  await closeIngest();
  await closeDb();
  await testDb?.drop();
});

/** The production ingest handler and enroll route, served as server.ts serves them. */
async function startServer(): Promise<{ url: string; close(): Promise<void> }> {
  const { handleIngestHttp } = await import('../../lib/server/process-ingest');
  const { POST: enroll } = await import('../../app/api/v1/enroll/route');
  const server = http.createServer((req, res) => {
    if (req.url === '/api/v1/ingest') return void handleIngestHttp(req, res);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const request = new Request(`http://127.0.0.1${req.url}`, { method: 'POST', headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) });
      const response = await enroll(request);
      res.writeHead(response.status, { 'content-type': 'application/json' });
      res.end(await response.text());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

function memoryStore(): DemoStateStore {
  let saved: DemoState | null = null;
  return { load: () => saved && structuredClone(saved), save: (state) => void (saved = structuredClone(state)) };
}

/** runner.idle(), but a runner still busy after three minutes of real time fails the test instead of hanging it. */
async function idle(runner: DemoRunner): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the demo runner did not finish sending')), 180_000)));
  await Promise.race([runner.idle(), late]).finally(() => clearTimeout(timer));
}

test('the demo fleet, through the real enroll and ingest endpoints on PostgreSQL, makes the findings engine raise exactly the planted findings', { timeout: 600_000 }, async () => {
  const { getDb } = await import('../../lib/db');
  const { ensureDemoKeys } = await import('../../lib/demo/keys');
  const { FindingsEngine } = await import('../../lib/findings/engine/engine');
  const { listActiveFindings } = await import('../../lib/findings/store/findings');
  const db = await getDb();
  const server = await startServer();
  const logs: string[] = [];
  // The ingest path checks report times against the real clock, so the simulated one starts at the real now.
  const clock = new FakeClock(Date.now());
  const runner = new DemoRunner({
    timers: clock,
    post: httpPoster(server.url),
    ensureKeys: (saved) => ensureDemoKeys(db, saved),
    store: memoryStore(),
    log: (message) => logs.push(message),
    backfillMs: 25 * MIN,
  });

  await runner.start();
  await clock.advanceTo(clock.nowMs);
  await idle(runner);
  // Then live reports, from the real now (so the silent host's last request is well behind) for 90 s more.
  const liveFrom = Math.max(clock.nowMs, Date.now());
  for (let t = clock.nowMs + 10_000; t <= liveFrom + 90_000; t += 10_000) {
    await clock.advanceTo(t);
    await idle(runner);
  }
  const nowMs = clock.nowMs;
  await runner.stop();
  await server.close();
  expect(logs).toEqual([]);
  // The writer records each host's progress (last seen, last report) a little behind its reports: flush it.
  const { closeIngest } = await import('../../lib/server/process-ingest');
  await closeIngest();

  const hosts = await rowsOf<{ id: number; hostname: string; region: string; labels: Record<string, string> }>(db.sql,
    'SELECT id, hostname, region, labels FROM hosts ORDER BY id',
  );
  expect(hosts.map((h) => h.hostname).sort()).toEqual(runner.hosts.map((h) => h.hostname).sort());
  for (const h of hosts) {
    expect(h.labels).toEqual(DEMO_LABELS);
    expect(h.region).toBe(runner.hosts.find((d) => d.hostname === h.hostname)!.region);
  }
  const [stored] = await rowsOf<{ n: number }>(db.sql, 'SELECT count(*)::int AS n FROM report_ledger');
  expect(stored!.n).toBeGreaterThan(runner.hosts.length * 150);

  const cycle = await new FindingsEngine(db).runCycle(new Date(nowMs));
  expect(cycle.failures).toEqual([]);
  const hostnameOf = new Map(hosts.map((h) => [Number(h.id), h.hostname]));
  const raised = new Map<string, string[]>();
  for (const f of await listActiveFindings(db.sql)) {
    const key = f.hostId === null ? `region:${f.region}` : hostnameOf.get(f.hostId)!;
    raised.set(key, [...new Set([...(raised.get(key) ?? []), f.ruleId])].sort());
  }
  const expected = new Map<string, string[]>([
    ...runner.hosts.flatMap((h) => (h.condition ? [[h.hostname, [...CONDITIONS[h.condition].shows].sort()] as [string, string[]]] : [])),
    ...Object.entries(REGION_SHOWS).flatMap(([region, shows]) => (shows.length ? [[`region:${region}`, [...shows].sort()] as [string, string[]]] : [])),
  ]);
  expect(raised).toEqual(expected);
  expect(raised.get('oslo-inf-04')).toEqual(['cpu.steal-high']);
  // The LLM host's engine, read through the agent's --scrape fields into server_samples, preempts steadily.
  expect(raised.get('fra-inf-11')).toEqual(['server.kv-preemption']);
  expect(raised.get('region:frankfurt')).toEqual(['region.rtt-gap']);
});
