import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeDb } from '../../lib/db';
import { openDatabase, type Database } from '../../lib/db/open';
import { GET } from '../../app/metrics/route';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { markLateMinutes, rollUp } from '../../lib/series';
import { readWatermarks } from '../../lib/series/rollup';
import { insertHost, insertHostSample, syncLastReportTs } from './series-support';
import { realisticReport } from '../../bench/_ingest-report';
import { closeIngest, ingestWithProcessDatabase } from '../../lib/server/process-ingest';
import { enrolledHost, jsonBody } from './ingest-helpers';

let testDb: TestDatabase;
let db: Database;
const now = new Date();
const staleAfterBefore = process.env.INFERWATCH_STALE_AFTER_MS;

beforeAll(async () => {
  // /metrics reads the real clock: a stale window longer than this file's timeouts keeps gpu-1 "ok" however long
  // the database took to create, and gpu-2, a day old, stale.
  process.env.INFERWATCH_STALE_AFTER_MS = String(3_600_000);
  testDb = await createTestDatabase();
  process.env.DATABASE_URL = testDb.url;
  db = await openDatabase({ kind: 'server', url: testDb.url });
  const ok = await insertHost(db.sql, { hostname: 'gpu-"1"', region: 'oslo', lastSeenAt: new Date(now.getTime() - 2_000) });
  await insertHostSample(db.sql, ok, new Date(now.getTime() - 2_000), { steal: 12.5, iowait: 3 });
  const stale = await insertHost(db.sql, { hostname: 'gpu-2', region: 'frankfurt', lastSeenAt: new Date(now.getTime() - 86_400_000) });
  await insertHostSample(db.sql, stale, new Date(now.getTime() - 86_400_000), { steal: 1, iowait: 0 });
  await insertHost(db.sql, { hostname: 'gpu-3', region: 'frankfurt' });
  await syncLastReportTs(db.sql);
});
afterAll(async () => {
  if (staleAfterBefore === undefined) delete process.env.INFERWATCH_STALE_AFTER_MS;
  else process.env.INFERWATCH_STALE_AFTER_MS = staleAfterBefore;
  await closeIngest();
  await closeDb();
  await db?.close();
  await testDb?.drop();
});

describe('GET /metrics', () => {
  test('answers Prometheus text with per-host gauges and fleet counts', async () => {
    const response = await GET(new Request('http://localhost/metrics'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toContain('inferwatch_host_cpu_steal_ratio{host="gpu-\\"1\\"",host_id="1",region="oslo"} 0.125');
    expect(text).toContain('inferwatch_host_up{host="gpu-2",host_id="2",region="frankfurt"} 0');
    expect(text).toContain('inferwatch_hosts{status="ok"} 1');
    expect(text).toContain('inferwatch_hosts{status="stale"} 1');
    expect(text).toContain('inferwatch_hosts{status="never_reported"} 1');
  });

  test('shows how far the rollups are behind, and the late queue', async () => {
    const before = await (await GET(new Request('http://localhost/metrics'))).text();
    expect(before).not.toContain('inferwatch_rollup_watermark_age_seconds{');
    expect(before).toContain('inferwatch_rollup_late_buckets_queued 0');

    // Two hours back, so that a closed hour is in range at any time of day (one hour back found none in the first
    // ≈ 90 s after the hour, when that hour's last minutes have not settled yet).
    const rolledAt = new Date();
    await rollUp(db.sql, rolledAt, { startAt: new Date(now.getTime() - 7_200_000) });
    await markLateMinutes(db.sql, [{ hostId: 1, minuteMs: now.getTime() - 3_600_000 }]);
    const marks = await readWatermarks(db.sql);
    const behindPass = (resolution: '1m' | '1h') => rolledAt.getTime() - marks[resolution]!.getTime();
    // A minute is rolled once it has settled (90 s), so the pass's newest rolled minute ended 90–150 s before it.
    expect(behindPass('1m')).toBeGreaterThanOrEqual(90_000);
    expect(behindPass('1m')).toBeLessThan(150_000);
    expect(behindPass('1h')).toBeGreaterThanOrEqual(behindPass('1m'));
    expect(behindPass('1h')).toBeLessThan(3_600_000 + 150_000);

    const askedAtMs = Date.now();
    const text = await (await GET(new Request('http://localhost/metrics'))).text();
    const answeredAtMs = Date.now();
    const age = (resolution: string) =>
      Number(new RegExp(`^inferwatch_rollup_watermark_age_seconds\\{resolution="${resolution}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
    // The gauge is each watermark's age at the moment /metrics answered, however long after the pass that was.
    for (const resolution of ['1m', '1h'] as const) {
      expect(age(resolution)).toBeGreaterThanOrEqual((askedAtMs - marks[resolution]!.getTime()) / 1000);
      expect(age(resolution)).toBeLessThanOrEqual((answeredAtMs - marks[resolution]!.getTime()) / 1000);
    }
    expect(text).toContain('inferwatch_rollup_late_buckets_queued 1');
  });

  test("shows this process's ingest: requests by answer, reports, and the time of requests, queue waits and flushes", async () => {
    const { token } = await enrolledHost(db);
    const send = (value: unknown, authorization = `Bearer ${token}`) =>
      ingestWithProcessDatabase({ authorization, contentType: 'application/json', ...jsonBody(value) });
    const ts = Date.now() - 30_000;
    expect((await send(realisticReport(1, ts))).status).toBe(200);
    expect((await send(realisticReport(1, ts))).status).toBe(200);
    expect((await send(realisticReport(2, ts + 10_000), 'Bearer nope')).status).toBe(401);
    const text = await (await GET(new Request('http://localhost/metrics'))).text();
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('inferwatch_ingest_requests_total{status="200",code="ok"}')).toBe(2);
    expect(value('inferwatch_ingest_requests_total{status="401",code="unauthorized"}')).toBe(1);
    expect(value('inferwatch_ingest_reports_total{result="accepted"}')).toBe(1);
    expect(value('inferwatch_ingest_reports_total{result="duplicate"}')).toBe(1);
    expect(value('inferwatch_ingest_request_duration_seconds_count')).toBe(3);
    // The replay found its duplicate in the ledger: two flushes, each of one report.
    expect(value('inferwatch_ingest_flush_duration_seconds_count{outcome="committed"}')).toBe(2);
    expect(value('inferwatch_ingest_flush_reports_sum')).toBe(2);
    expect(value('inferwatch_ingest_queue_wait_seconds_count')).toBe(2);
    // Node's own, from the same registry: what holds the event loop shows beside ingest's times.
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \S+$/m);
  });

  test('passes promtool check metrics (Debian package prometheus)', async () => {
    const which = spawnSync('sh', ['-c', 'command -v promtool']);
    if (which.status !== 0) {
      throw new Error('promtool is missing: install it with `apt-get install -y prometheus` (CI installs it)');
    }
    const text = await (await GET(new Request('http://localhost/metrics'))).text();
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(`${check.stdout}${check.stderr}`).toBe('');
    expect(check.status).toBe(0);
  });
});
