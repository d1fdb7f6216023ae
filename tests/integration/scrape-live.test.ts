import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { quantileRank } from '../../lib/sketch';
import { eventually, startAgent, startIngestServer, stopProcess } from '../support/live-agent';
import { ModelServer, type Observation } from '../support/scrape/model-server';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { seeded } from './series-support';

// The real agent CLI scrapes two model servers' /metrics, served by Debian's python3-prometheus-client under vLLM's
// and Triton's own names and bucket layouts (tests/support/scrape/model_server.py), into the real ingest path and
// PostgreSQL. Every phase waits for what the database holds, never for wall-clock time: the observations made
// between two scrapes, across a restart of the server (its counters start again) and across a malformed exposition,
// arrive exactly once; the server's quantiles agree with the exact ones of what was observed within the error each
// quantile states.
const E2E = 'vllm:e2e_request_latency_seconds';
const TTFT = 'vllm:time_to_first_token_seconds';
const MODEL = { model_name: 'meta-llama/Llama-3.1-8B-Instruct', engine: '0' };
const TRITON = { model: 'resnet50', version: '1' };
const QUANTILES = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99, p999: 0.999 } as const;

let testDb: TestDatabase;
let workDir: string;
let server: Awaited<ReturnType<typeof startIngestServer>>;
let agent: ChildProcess | undefined;
let vllm: ModelServer | undefined;
let triton: ModelServer | undefined;
const observed: Record<string, number[]> = { [E2E]: [], [TTFT]: [] };

/** Log-normal durations in seconds, from a fixed seed so a failure reproduces. */
function durations(random: () => number, n: number, medianS: number, sigma: number, maxS: number): number[] {
  return Array.from({ length: n }, () => {
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return Math.min(maxS, medianS * Math.exp(sigma * normal));
  });
}

async function observe(random: () => number, n: number, beyondTopS: number[] = []): Promise<void> {
  const e2e = [...durations(random, n - beyondTopS.length, 1.8, 0.9, 2000), ...beyondTopS];
  const ttft = durations(random, n, 0.08, 1.1, 200);
  observed[E2E]!.push(...e2e.map((s) => s * 1000));
  observed[TTFT]!.push(...ttft.map((s) => s * 1000));
  const observations: Observation[] = [
    { metric: E2E, labels: MODEL, values: e2e },
    { metric: TTFT, labels: MODEL, values: ttft },
  ];
  await vllm!.send({ observe: observations });
}

async function query<T>(text: string, params: unknown[] = []): Promise<T[]> {
  const { getDb } = await import('../../lib/db');
  return (await getDb()).sql.query<T & Record<string, unknown>>(text, params);
}

const storedCount = async (name: string) => Number((await query<{ n: number }>('SELECT coalesce(sum(count), 0)::int AS n FROM latency_samples WHERE name = $1', [name]))[0]!.n);
const serverRows = (name: string) => query<{ ts: Date; ok: boolean; error: string | null; latency_mean_ms: number | null; queue_mean_ms: number | null; batch_size: number | null; waiting: number | null }>(
  'SELECT ts, ok, error, latency_mean_ms, queue_mean_ms, batch_size, waiting FROM server_samples WHERE name = $1 ORDER BY ts', [name],
);

/** Resolves once the agent has scraped `name` successfully `more` times after now. */
async function scrapedAgain(name: string, more: number): Promise<void> {
  const before = (await serverRows(name)).filter((r) => r.ok).length;
  await eventually(`${more} more scrapes of ${name}`, async () => ((await serverRows(name)).filter((r) => r.ok).length >= before + more ? true : undefined));
}

async function countReaches(name: string, expected: number): Promise<void> {
  await eventually(`${expected} ${name} observations stored`, async () => {
    const n = await storedCount(name);
    if (n > expected) throw new Error(`${name}: ${n} stored, more than the ${expected} observed`);
    return n === expected ? true : undefined;
  });
}

function exactQuantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[quantileRank(q, sorted.length) - 1]!;
}

beforeAll(async () => {
  testDb = await createTestDatabase('iw_scrape_live');
  process.env.DATABASE_URL = testDb.url;
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-scrape-live-'));
  server = await startIngestServer(path.join(workDir, 'enroll-key'));
  vllm = await ModelServer.start(['vllm']);
  triton = await ModelServer.start(['triton']);
});

afterAll(async () => {
  await stopProcess(agent);
  await vllm?.stop();
  await triton?.stop();
  await server?.close();
  await testDb?.drop();
  fs.rmSync(workDir, { recursive: true, force: true });
});

describe('the real agent scraping real Prometheus expositions', () => {
  test('deltas arrive once across a restart and a malformed exposition; quantiles agree with the exact ones within the stated error', { timeout: 300_000 }, async () => {
    const logFile = path.join(workDir, 'agent.log');
    agent = startAgent({
      serverUrl: server.url,
      keyFile: path.join(workDir, 'enroll-key'),
      stateDir: path.join(workDir, 'agent'),
      intervalS: 1,
      watch: [],
      args: ['--scrape', `vllm=${vllm!.url}`, '--scrape', `triton=${triton!.url}`],
      stderrFd: fs.openSync(logFile, 'w'),
    });
    // The first scrape of a server is its baseline: observe only once a report says the agent has scraped it.
    await scrapedAgain('vllm', 1);
    await scrapedAgain('triton', 1);
    const random = seeded(2026);

    // One request past vLLM's last bucket (7,680 s): its count is stored with an unbounded error.
    await observe(random, 400, [9000]);
    await vllm!.send({ set: [{ metric: 'vllm:num_requests_waiting', labels: MODEL, value: 5 }] });
    await triton!.send({
      add: [
        { metric: 'nv_inference_request_success', labels: TRITON, value: 40 },
        { metric: 'nv_inference_count', labels: TRITON, value: 160 },
        { metric: 'nv_inference_exec_count', labels: TRITON, value: 20 },
        { metric: 'nv_inference_request_duration_us', labels: TRITON, value: 520_000 },
        { metric: 'nv_inference_queue_duration_us', labels: TRITON, value: 48_000 },
      ],
    });
    await countReaches(E2E, 400);
    await countReaches(TTFT, 400);

    // A restart: the new process on the same port counts from zero again.
    const port = vllm!.port;
    await vllm!.stop();
    vllm = await ModelServer.start(['vllm'], port);
    await observe(random, 600);
    await countReaches(E2E, 1000);
    await scrapedAgain('vllm', 3);
    expect(await storedCount(E2E)).toBe(1000);

    // A malformed exposition costs its scrapes and nothing else; what was observed meanwhile arrives after it.
    await vllm!.send({ malformed: true });
    const broken = await eventually('a malformed scrape in a report', async () => (await serverRows('vllm')).find((r) => !r.ok && /malformed/.test(r.error ?? '')));
    expect(broken.error).toMatch(/^malformed exposition: line \d+: unterminated value of label "model_name"/);
    const sameReport = (await serverRows('triton')).find((r) => r.ts.getTime() === broken.ts.getTime());
    expect(sameReport?.ok).toBe(true);
    expect(await query('SELECT 1 FROM host_samples WHERE ts = $1', [broken.ts])).toHaveLength(1);
    await observe(random, 200);
    await vllm!.send({ malformed: false });
    await countReaches(E2E, 1200);
    await countReaches(TTFT, 1200);
    await scrapedAgain('vllm', 2);
    expect(await storedCount(E2E)).toBe(1200);

    const [open] = await query<{ e: number }>(`SELECT max(e)::float8 AS e FROM latency_samples, unnest(bucket_errors) e WHERE name = $1`, [E2E]);
    expect(open!.e).toBe(Infinity);

    const log = fs.readFileSync(logFile, 'utf8').split('\n').filter((l) => l.includes('scrape failed') && l.includes('malformed exposition'));
    expect(log).toHaveLength(1);

    // Triton's counters: means over the interval they grew in, labelled as means.
    const tritonRows = (await serverRows('triton')).filter((r) => r.latency_mean_ms !== null);
    expect(tritonRows).toHaveLength(1);
    expect(tritonRows[0]).toMatchObject({ latency_mean_ms: 13, queue_mean_ms: 1.2, batch_size: 8 });
    expect((await serverRows('vllm')).some((r) => r.waiting === 5)).toBe(true);

    const { getDb } = await import('../../lib/db');
    const { getLatencyQuantiles } = await import('../../lib/series');
    const [host] = await query<{ id: number }>('SELECT id FROM hosts');
    const agreement: Record<string, string>[] = [];
    for (const name of [E2E, TTFT]) {
      const { total } = await getLatencyQuantiles(await getDb(), {
        scope: { kind: 'host', hostId: host!.id },
        name,
        from: new Date(Date.now() - 3_600_000),
        to: new Date(Date.now() + 60_000),
      });
      expect(total.count).toBe(1200);
      expect(total.meanMs).toBeCloseTo(observed[name]!.reduce((a, b) => a + b, 0) / 1200, 6);
      for (const [label, q] of Object.entries(QUANTILES) as [keyof typeof QUANTILES, number][]) {
        const reported = total[label]!;
        const exact = exactQuantile(observed[name]!, q);
        const error = total.bucketError![label];
        expect(error, `${name} ${label} fell in a bounded bucket`).not.toBeNull();
        agreement.push({ name, quantile: label, exactMs: exact.toFixed(1), serverMs: reported.toFixed(1), offPct: ((100 * Math.abs(reported - exact)) / exact).toFixed(1), statedPct: (100 * error!).toFixed(1) });
        expect(Math.abs(reported - exact), `${name} ${label}: ${reported} vs exact ${exact}, stated ±${error}`).toBeLessThanOrEqual(error! * reported);
      }
    }
    console.table(agreement);
  });
});
