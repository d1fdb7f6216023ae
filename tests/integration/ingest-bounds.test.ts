import { afterAll, beforeAll, expect, test } from 'vitest';
import { realisticReport } from '../../bench/_ingest-report';
import { ingestRequest, type IngestDeps } from '../../lib/ingest/ingest-request';
import { createIngestDeps } from '../../lib/ingest/ingest-deps';
import { ingestLimits } from '../../lib/ingest/limits';
import type { CgroupSample, DiskSample, Report } from '../../lib/protocol';
import { rollUp } from '../../lib/series/rollup';
import { createServerDatabase, enrolledHost, jsonBody, type TestDatabase } from './ingest-helpers';
import { rowsOf } from '../support/rows';

// Found by the read API fuzz: ingest took any finite number up to Number.MAX_VALUE, float4 columns stored values past
// their range as Infinity, and the next rollup failed on "value out of range: overflow" — for every host, each pass.
let t: TestDatabase;
let deps: IngestDeps;

beforeAll(async () => {
  t = await createServerDatabase();
  const limits = ingestLimits();
  deps = createIngestDeps(t.db, { limits: { ...limits, rate: { ...limits.rate, requestBurst: 1e9, reportBurst: 1e9 } } });
});
afterAll(async () => {
  await deps?.writer.close();
  await t?.drop();
});

/** A report whose every gauge, rate and size is `value`, and whose histograms' sums are `value` too. */
function reportAt(seq: number, ts: number, value: number): Report {
  const report = realisticReport(seq, ts);
  report.disks = (report.disks as DiskSample[]).map((d) => ({ ...d, readBytesPerS: value, writeIops: value, queueDepth: value, readAwaitMs: value }));
  report.cgroups = (report.cgroups as CgroupSample[]).map((g) => ({ ...g, quotaCores: value, usageCores: value, throttledMsPerS: value }));
  report.processes = report.processes.map((p) => ({ ...p, cpuCores: value, rssBytes: value }));
  report.latency = report.latency.map((l) => ({ ...l, sketch: { ...l.sketch, sum: value, max: value } }));
  report.probes = [{ name: 'edge', target: 'https://x', ok: true, connectMs: value, responseMs: value, error: null }];
  report.servers = [{ name: 'vllm', ok: true, error: null, requestsPerS: value, latencyMeanMs: value, queueMeanMs: value, waiting: value, running: value, batchSize: value, droppedSeries: 0 }];
  report.agent.spoolBytes = value;
  return report;
}

const post = (token: string, reports: Report[]) =>
  ingestRequest({ authorization: `Bearer ${token}`, contentType: 'application/json', ...jsonBody({ reports }) }, deps);

test('a value past 1e18 is refused with 400 naming the field, a histogram zeroCount past 2^31 - 1 too', async () => {
  const host = await enrolledHost(t.db);
  const now = Date.now() - 120_000;
  for (const value of [1e39, Number.MAX_VALUE, 1.000001e18]) {
    const out = await post(host.token, [reportAt(1, now, value)]);
    expect(out.status).toBe(400);
    const paths = (out.body as { error: { details: { path: string }[] } }).error.details.map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['reports.0.disks.0.readBytesPerS', 'reports.0.agent.spoolBytes', 'reports.0.latency.0.sketch.sum']));
  }
  const huge = realisticReport(2, now);
  huge.latency[0]!.sketch = { ...huge.latency[0]!.sketch, zeroCount: 2 ** 31, count: huge.latency[0]!.sketch.count + 2 ** 31 };
  const refused = await post(host.token, [huge]);
  expect((refused.body as { error: { details: { path: string }[] } }).error.details[0]!.path).toBe('reports.0.latency.0.sketch.zeroCount');
});

test('reports at the largest values ingest takes are stored and rolled up', async () => {
  const host = await enrolledHost(t.db);
  const start = Date.now() - 30 * 60_000;
  const reports = Array.from({ length: 120 }, (_, i) => reportAt(i, start + i * 10_000, 1e18));
  expect((await post(host.token, reports)).status).toBe(200);
  await rollUp(t.db.sql, new Date());
  const [row] = await rowsOf<{ n: number }>(t.db.sql, 'SELECT count(*)::int AS n FROM disk_samples_1m WHERE host_id = $1', [host.hostId]);
  expect(row!.n).toBeGreaterThan(0);
});
