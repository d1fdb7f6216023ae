import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { enrollHost } from '../../lib/auth/enroll-host';
import { createEnrollmentKey } from '../../lib/auth/enrollment-keys';
import { closeDb } from '../../lib/db';
import { kvEpisodes } from '../../lib/demo/behaviour';
import { DEMO_INTERVAL_MS, demoFleet, type DemoHost } from '../../lib/demo/fleet';
import { ITL_NAME, TTFT_NAME } from '../../lib/demo/latency';
import { demoReport } from '../../lib/demo/report';
import { explainLatency } from '../../lib/findings/latency/read/explain-latency';
import { createIngestDeps } from '../../lib/ingest/ingest-deps';
import { ingestRequest, type IngestDeps } from '../../lib/ingest/ingest-request';
import { ingestLimits } from '../../lib/ingest/limits';
import type { Report } from '../../lib/protocol';
import { HOUR_MS, MINUTE_MS, floorTo } from '../../lib/protocol/time';
import { rollUp } from '../../lib/series';
import { createServerDatabase, jsonBody, type TestDatabase } from './ingest-helpers';

// The demo's LLM region as its hosts report it, judged by latency explained over PostgreSQL. Each host reports every
// 10 s around the judged episode; over the 24 h baseline one report in 30 stands for the rest (hourly p99s and gauge
// means need a dozen reports an hour, not 360), so the test ingests a few thousand reports rather than 45,000.
const NOW = floorTo(Date.now(), MINUTE_MS);
const BASELINE_EVERY_MS = 5 * MINUTE_MS;
const fleet = demoFleet({ epochMs: NOW - 2 * 24 * HOUR_MS });
const region = fleet.filter((h) => h.region === 'stockholm');
const planted = region.find((h) => h.condition === 'kv-pressure-episodes')!;
const peer = region.find((h) => h.service === 'vllm' && h.condition === null)!;
// Every 13 hours hold two whole 6-hour slots, each with one episode: the newest that ended is judged.
const episode = kvEpisodes(planted, NOW - 13 * HOUR_MS, NOW).filter((e) => e.endMs <= NOW - MINUTE_MS).at(-1)!;
const FROM = Math.ceil(episode.startMs / MINUTE_MS) * MINUTE_MS;
const TO = floorTo(episode.endMs, MINUTE_MS);
/** An hour of the planted host's own calm before the episode, at full cadence too. */
const CALM = { from: FROM - 75 * MINUTE_MS, to: FROM - 15 * MINUTE_MS };

function reportsOf(host: DemoHost): Report[] {
  const fullFrom = host === planted ? CALM.from : FROM - 10 * MINUTE_MS;
  const first = floorTo(FROM, HOUR_MS) - 25 * HOUR_MS + host.phaseMs;
  const times: number[] = [];
  for (let ts = first; ts < fullFrom; ts += BASELINE_EVERY_MS) times.push(ts);
  for (let ts = first + Math.ceil((fullFrom - first) / DEMO_INTERVAL_MS) * DEMO_INTERVAL_MS; ts <= TO + 5 * MINUTE_MS && ts <= NOW; ts += DEMO_INTERVAL_MS) times.push(ts);
  return times.map((ts, seq) => demoReport(host, ts, seq, { inventory: seq === 0 }));
}

let testDb: TestDatabase;
let deps: IngestDeps;
const hostIds = new Map<DemoHost, number>();

beforeAll(async () => {
  testDb = await createServerDatabase();
  process.env.DATABASE_URL = testDb.url;
  const limits = ingestLimits();
  deps = createIngestDeps(testDb.db, { limits: { ...limits, rate: { ...limits.rate, requestBurst: 1e9, reportBurst: 1e9 } } });
  const key = await createEnrollmentKey(testDb.db, { name: 'demo-stockholm', region: 'stockholm', labels: {} });
  for (const host of region) {
    const enrolled = await enrollHost(testDb.db, key.key, { hostname: host.hostname, machineId: host.machineId });
    hostIds.set(host, enrolled.hostId);
    const reports = reportsOf(host);
    for (let i = 0; i < reports.length; i += 200) {
      const out = await ingestRequest({ authorization: `Bearer ${enrolled.token}`, contentType: 'application/json', ...jsonBody({ reports: reports.slice(i, i + 200) }) }, deps);
      expect(out.status).toBe(200);
    }
  }
  await deps.writer.close();
  await rollUp(testDb.db.sql, new Date(NOW), { startAt: new Date(floorTo(FROM, HOUR_MS) - 26 * HOUR_MS), settleMs: 0, maxChunks: 1000 });
}, 300_000);

afterAll(async () => {
  await closeDb();
  await testDb?.drop();
});

const explain = (host: DemoHost, name: string, range = { from: FROM, to: TO }) =>
  explainLatency(testDb.db.sql, { hostId: hostIds.get(host)!, name, from: new Date(range.from), to: new Date(range.to), now: new Date(NOW) });

describe("latency explained over the demo's LLM region", () => {
  test.each([TTFT_NAME, ITL_NAME])('names KV pressure for the episodes host’s %s in an episode, ahead of the queue it grows, with no host cause', async (name) => {
    const out = await explain(planted, name);
    expect(out.verdict).toBe('kv-pressure');
    expect(out.baseline).toMatchObject({ hours: 24, ofHours: 24 });
    expect(out.ratio).toBeGreaterThan(2);
    expect(out.region).toMatchObject({ region: 'stockholm', otherHosts: region.length - 1, regressed: false });
    const kinds = out.causes.map((c) => c.kind);
    expect(kinds.slice(0, 2)).toEqual(['kv-cache', 'kv-cache']);
    expect(new Set(kinds)).toEqual(new Set(['kv-cache', 'queue']));
    const cache = out.causes.find((c) => c.series?.metric === 'server_kv_cache')!;
    expect(cache.subject).toBe('vllm');
    expect(cache.after).toBeGreaterThan(96);
    expect(out.causes.find((c) => c.series?.metric === 'server_preemptions')!.after).toBeGreaterThan(15);
    expect(out.summary).toMatch(/with vllm: (KV cache at 9\d % and [\d.]+ preemptions\/min|[\d.]+ preemptions\/min .* and KV cache at 9\d %)/);
    expect(out.summary).toMatch(/no host cause: KV cache pressure .* raise `gpu_memory_utilization`/);
  });

  test('the same host in a calm hour before the episode did not regress', async () => {
    const out = await explain(planted, TTFT_NAME, CALM);
    expect(out.verdict).toBe('no-regression');
  });

  test('a vLLM peer with room in its cache did not regress in the same range', async () => {
    const out = await explain(peer, TTFT_NAME);
    expect(out.verdict).toBe('no-regression');
  });
});
