import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeDb } from '../../lib/db';
import { openDatabase, type Database } from '../../lib/db/open';
import { GET } from '../../app/metrics/route';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { markLateMinutes, rollUp } from '../../lib/series';
import { insertHost, insertHostSample, syncLastReportTs } from './series-support';
import { realisticReport } from '../../bench/_ingest-report';
import { closeIngest, ingestWithProcessDatabase } from '../../lib/server/process-ingest';
import { enrolledHost, jsonBody } from './ingest-helpers';

let testDb: TestDatabase;
let db: Database;
const now = new Date();

beforeAll(async () => {
  testDb = await createTestDatabase();
  process.env.DATABASE_URL = testDb.url;
  db = await openDatabase({ kind: 'server', url: testDb.url });
  const ok = await insertHost(db.sql, { hostname: 'gpu-"1"', region: 'oslo', lastSeenAt: new Date(now.getTime() - 2_000) });
  await insertHostSample(db.sql, ok, new Date(now.getTime() - 2_000), { steal: 12.5, iowait: 3 });
  const stale = await insertHost(db.sql, { hostname: 'gpu-2', region: 'frankfurt', lastSeenAt: new Date(now.getTime() - 600_000) });
  await insertHostSample(db.sql, stale, new Date(now.getTime() - 600_000), { steal: 1, iowait: 0 });
  await insertHost(db.sql, { hostname: 'gpu-3', region: 'frankfurt' });
  await syncLastReportTs(db.sql);
});
afterAll(async () => {
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
    await rollUp(db.sql, new Date(), { startAt: new Date(now.getTime() - 7_200_000) });
    await markLateMinutes(db.sql, [{ hostId: 1, minuteMs: now.getTime() - 3_600_000 }]);
    const text = await (await GET(new Request('http://localhost/metrics'))).text();
    const age = (resolution: string) =>
      Number(new RegExp(`^inferwatch_rollup_watermark_age_seconds\\{resolution="${resolution}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
    // A minute is rolled once it has settled (90 s), so right after a pass the newest rolled minute ended 90–150 s ago.
    expect(age('1m')).toBeGreaterThanOrEqual(90);
    expect(age('1m')).toBeLessThan(150);
    expect(age('1h')).toBeGreaterThanOrEqual(age('1m'));
    expect(age('1h')).toBeLessThan(3_600 + 150);
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
