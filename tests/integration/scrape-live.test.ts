import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { queryRow } from '../../lib/db/rows';
import { eventually, startAgent, startIngestServer, stopProcess } from '../support/live-agent';
import { countReaches, exactQuantile, logNormalDurations, storedLatencyCount } from '../support/live-latency';
import { ModelServer, type Observation } from '../support/scrape/model-server';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { seeded } from './series-support';
import { rowsOf } from '../support/rows';

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
const SGLANG = { model_name: 'Qwen/Qwen2.5-7B-Instruct', engine_type: 'unified', tp_rank: '0', pp_rank: '0' };
const SGLANG_TTFT = 'sglang:time_to_first_token_seconds';
const QUANTILES = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99, p999: 0.999 } as const;

let testDb: TestDatabase;
let workDir: string;
let server: Awaited<ReturnType<typeof startIngestServer>>;
let agent: ChildProcess | undefined;
let vllm: ModelServer | undefined;
let triton: ModelServer | undefined;
let sglang: ModelServer | undefined;
const observed: Record<string, number[]> = { [E2E]: [], [TTFT]: [] };

async function observe(random: () => number, n: number, beyondTopS: number[] = []): Promise<void> {
  const e2e = [...logNormalDurations(random, n - beyondTopS.length, 1.8, 0.9, 2000), ...beyondTopS];
  const ttft = logNormalDurations(random, n, 0.08, 1.1, 200);
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
  return rowsOf<T & Record<string, unknown>>((await getDb()).sql, text, params);
}

const serverRows = (name: string) => query<{
  ts: Date; ok: boolean; error: string | null; latency_mean_ms: number | null; queue_mean_ms: number | null; batch_size: number | null; waiting: number | null;
  kv_cache_pct: number | null; preemptions_per_min: number | null;
}>(
  'SELECT ts, ok, error, latency_mean_ms, queue_mean_ms, batch_size, waiting, kv_cache_pct, preemptions_per_min FROM server_samples WHERE name = $1 ORDER BY ts', [name],
);

/** Resolves once the agent has scraped `name` successfully `more` times after now. */
async function scrapedAgain(name: string, more: number): Promise<void> {
  const before = (await serverRows(name)).filter((r) => r.ok).length;
  await eventually(`${more} more scrapes of ${name}`, async () => ((await serverRows(name)).filter((r) => r.ok).length >= before + more ? true : undefined));
}

beforeAll(async () => {
  testDb = await createTestDatabase('iw_scrape_live');
  process.env.DATABASE_URL = testDb.url;
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-scrape-live-'));
  server = await startIngestServer(path.join(workDir, 'enroll-key'));
  vllm = await ModelServer.start(['vllm']);
  triton = await ModelServer.start(['triton']);
  sglang = await ModelServer.start(['sglang']);
});

afterAll(async () => {
  await stopProcess(agent);
  await vllm?.stop();
  await triton?.stop();
  await sglang?.stop();
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
      args: ['--scrape', `vllm=${vllm!.url}`, '--scrape', `triton=${triton!.url}`, '--scrape', `sglang=${sglang!.url}`],
      stderrFd: fs.openSync(logFile, 'w'),
    });
    // The first scrape of a server is its baseline: observe only once a report says the agent has scraped it.
    await scrapedAgain('vllm', 1);
    await scrapedAgain('triton', 1);
    await scrapedAgain('sglang', 1);
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
    // SGLang under its own names and layout: its TTFT histogram, its KV pool in use and its retractions counter.
    const sglangTtft = logNormalDurations(seeded(2027), 300, 0.5, 0.8, 300);
    await sglang!.send({
      observe: [{ metric: SGLANG_TTFT, labels: SGLANG, values: sglangTtft }],
      set: [{ metric: 'sglang:token_usage', labels: SGLANG, value: 0.97 }],
      add: [{ metric: 'sglang:num_retracted_requests', labels: SGLANG, value: 30 }],
    });
    await countReaches(E2E, 400);
    await countReaches(TTFT, 400);
    await countReaches(SGLANG_TTFT, 300);

    // A restart: the new process on the same port counts from zero again.
    const port = vllm!.port;
    await vllm!.stop();
    vllm = await ModelServer.start(['vllm'], port);
    await observe(random, 600);
    await countReaches(E2E, 1000);
    await scrapedAgain('vllm', 3);
    expect(await storedLatencyCount(E2E)).toBe(1000);

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
    expect(await storedLatencyCount(E2E)).toBe(1200);

    const [open] = await query<{ e: number }>(`SELECT max(e)::float8 AS e FROM latency_samples, unnest(bucket_errors) e WHERE name = $1`, [E2E]);
    expect(open!.e).toBe(Infinity);

    const log = fs.readFileSync(logFile, 'utf8').split('\n').filter((l) => l.includes('scrape failed') && l.includes('malformed exposition'));
    expect(log).toHaveLength(1);

    // Triton's counters: means over the interval they grew in, labelled as means.
    const tritonRows = (await serverRows('triton')).filter((r) => r.latency_mean_ms !== null);
    expect(tritonRows).toHaveLength(1);
    expect(tritonRows[0]).toMatchObject({ latency_mean_ms: 13, queue_mean_ms: 1.2, batch_size: 8 });
    expect((await serverRows('vllm')).some((r) => r.waiting === 5)).toBe(true);

    // SGLang: the KV pool as a percentage; the 30 retractions counted once, as a rate over the interval they fell in.
    const sglangRows = (await serverRows('sglang')).filter((r) => r.ok);
    expect(sglangRows.at(-1)!.kv_cache_pct).toBeCloseTo(97, 4);
    const rated = sglangRows.filter((r) => (r.preemptions_per_min ?? 0) > 0);
    expect(rated).toHaveLength(1);
    const { getDb: db } = await import('../../lib/db');
    const reportRow = await queryRow((await db()).sql, 'host_samples', z.object({ interval_ms: z.number() }), 'SELECT interval_ms FROM host_samples WHERE ts = $1', [rated[0]!.ts]);
    // The agent measures the rate over its own monotonic clock between scrapes: within 35 % of the report interval's.
    const expectedPerMin = (30 * 60_000) / reportRow!.interval_ms;
    expect(Math.abs(rated[0]!.preemptions_per_min! - expectedPerMin) / expectedPerMin).toBeLessThan(0.35);

    const { getDb } = await import('../../lib/db');
    const { getLatencyQuantiles } = await import('../../lib/series');
    const [host] = await query<{ id: number }>('SELECT id FROM hosts');
    const agreement: Record<string, string>[] = [];
    observed[SGLANG_TTFT] = sglangTtft.map((v) => v * 1000);
    for (const name of [E2E, TTFT, SGLANG_TTFT]) {
      const { total } = await getLatencyQuantiles(await getDb(), {
        scope: { kind: 'host', hostId: host!.id },
        name,
        from: new Date(Date.now() - 3_600_000),
        to: new Date(Date.now() + 60_000),
      });
      const n = observed[name]!.length;
      expect(total.count).toBe(n);
      expect(total.meanMs).toBeCloseTo(observed[name]!.reduce((a, b) => a + b, 0) / n, 6);
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
