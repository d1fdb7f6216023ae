import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { GET as getLatency } from '../../app/api/v1/latency/route';
import { GET as getLatencySeries } from '../../app/api/v1/hosts/[id]/latency-series/route';
import type { LatencyResponse } from '../../lib/protocol/read-api/latency';
import type { HostLatencySeriesResponse } from '../../lib/protocol/read-api/host';
import { SKETCH_RELATIVE_ACCURACY, quantileRank } from '../../lib/sketch';
import { freePort } from '../support/free-port';
import { eventually, startAgent, startIngestServer, stopProcess } from '../support/live-agent';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { seeded } from './series-support';
import { rowsOf } from '../support/rows';

// The real agent CLI takes timings on its HTTP intake and reports them to the real ingest path on PostgreSQL; the
// host page's two read APIs (its latency series, and one series' quantiles per chart bucket) must then show them.
let testDb: TestDatabase;
let workDir: string;
let server: Awaited<ReturnType<typeof startIngestServer>>;
let agent: ChildProcess | undefined;

beforeAll(async () => {
  testDb = await createTestDatabase('iw_intake_live');
  process.env.DATABASE_URL = testDb.url;
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-intake-live-'));
  server = await startIngestServer(path.join(workDir, 'enroll-key'));
});

afterAll(async () => {
  await stopProcess(agent);
  await server?.close();
  await testDb?.drop();
  fs.rmSync(workDir, { recursive: true, force: true });
});

const call = async <T>(handler: (r: Request, c: never) => Promise<Response>, url: string, params: Record<string, string> = {}) => {
  const response = await handler(new Request(`http://localhost${url}`), { params: Promise.resolve(params) } as never);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as T;
};

function exactQuantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[quantileRank(q, sorted.length) - 1]!;
}

test('a batch of 1,001 timings posted to the agent’s HTTP intake reaches the host’s latency series and chart buckets', { timeout: 180_000 }, async () => {
  const port = await freePort();
  agent = startAgent({
    serverUrl: server.url,
    keyFile: path.join(workDir, 'enroll-key'),
    stateDir: path.join(workDir, 'agent'),
    intervalS: 1,
    watch: [],
    args: ['--http-intake-addr', `127.0.0.1:${port}`],
  });
  const post = (body: unknown) =>
    fetch(`http://127.0.0.1:${port}/v1/timings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await eventually('the agent’s intake to listen', async () => (await post({ timings: [] }).then(() => true).catch(() => undefined)));

  const random = seeded(28);
  const predictMs = Array.from({ length: 1001 }, () => Math.round(20 * Math.exp(0.6 * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())) * 100) / 100);
  const predict = await post({ timings: predictMs.map((valueMs, i) => ({ name: 'predict', valueMs, tags: { route: i % 2 ? '/v1/predict' : '/v2/predict' } })) });
  expect(await predict.json()).toEqual({ accepted: 1001, dropped: 0, malformed: 0 });
  // Sampled at 1 in 4: each of the 50 timings stands for 4 requests.
  const embed = await post({ timings: Array.from({ length: 50 }, (_, i) => ({ name: 'embed', valueMs: 3 + i / 10, sampleRate: 0.25 })) });
  expect(await embed.json()).toEqual({ accepted: 50, dropped: 0, malformed: 0 });

  const [host] = await (await import('../../lib/db')).getDb().then((db) => rowsOf<{ id: number }>(db.sql, 'SELECT id FROM hosts'));
  const id = String(host!.id);
  const from = Date.now() - 3_600_000;
  const range = () => `from=${new Date(from).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`;
  const series = await eventually('both series on the host', async () => {
    const body = await call<HostLatencySeriesResponse>(getLatencySeries, `/api/v1/hosts/${id}/latency-series?${range()}`, { id });
    return body.series.length === 2 ? body.series : undefined;
  });
  expect(series).toEqual([
    { name: 'predict', count: 1001 },
    { name: 'embed', count: 200 },
  ]);

  // What the host page's latency chart asks for: one series' quantiles per bucket over the range.
  const chart = await call<LatencyResponse>(getLatency, `/api/v1/latency?host=${id}&name=predict&points=1500&${range()}`);
  const filled = chart.series!.buckets.filter((b) => b.count > 0);
  expect(filled.reduce((sum, b) => sum + b.count, 0)).toBe(1001);
  expect(chart.total.count).toBe(1001);
  expect(chart.total.meanMs).toBeCloseTo(predictMs.reduce((a, b) => a + b, 0) / 1001, 6);
  expect([chart.total.minMs, chart.total.maxMs]).toEqual([Math.min(...predictMs), Math.max(...predictMs)]);
  for (const [label, q] of [['p50', 0.5], ['p90', 0.9], ['p95', 0.95], ['p99', 0.99], ['p999', 0.999]] as const) {
    const exact = exactQuantile(predictMs, q);
    expect(Math.abs(chart.total[label]! - exact), `${label}: ${chart.total[label]} vs exact ${exact}`).toBeLessThanOrEqual(SKETCH_RELATIVE_ACCURACY * exact);
  }
});
