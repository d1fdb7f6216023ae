import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OTLPMetricExporter as OtlpJsonExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as OtlpProtoExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationTemporality, AggregationType, MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventually, startAgent, startIngestServer, stopProcess } from '../support/live-agent';
import { countReaches, exactQuantile, logNormalDurations } from '../support/live-latency';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { seeded } from './series-support';

// The real OpenTelemetry JS SDK exports to the real agent CLI's OTLP/HTTP intake, which reports into the real ingest
// path and PostgreSQL: binary protobuf with delta temporality, then JSON with cumulative temporality across a
// restarted exporter (a new MeterProvider: its start time is new, its counts begin again). Each export is forced
// (forceFlush), never timed; every phase waits for what the database holds. Every observation arrives exactly once,
// and the stored quantiles agree with the exact ones within the error each quantile states.
const REQUEST = 'gen_ai.server.request.duration';
const TTFT = 'gen_ai.server.time_to_first_token';
const TPOT = 'gen_ai.server.time_per_output_token';
const QUEUE = 'llm.queue.wait';
const MODEL = { 'gen_ai.request.model': 'meta-llama/Llama-3.1-8B-Instruct', 'gen_ai.operation.name': 'chat' };
// vLLM's e2e latency layout (seconds), as an SDK user would give it.
const REQUEST_BOUNDS = [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680];
// The GenAI semantic conventions' advised boundaries for time per output token. Without them the SDK's default
// boundaries (0, 5, 10, … in the instrument's unit, seconds here) put every token in (0 s, 5 s], stored at ±100 %.
const TPOT_BOUNDS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5];
const QUANTILES = { p50: 0.5, p90: 0.9, p99: 0.99 } as const;

let testDb: TestDatabase;
let workDir: string;
let server: Awaited<ReturnType<typeof startIngestServer>>;
let agent: ChildProcess | undefined;
let otlpUrl: string;
const observedMs: Record<string, number[]> = { [REQUEST]: [], [TTFT]: [], [TPOT]: [], [QUEUE]: [] };

function exporter(kind: 'protobuf' | 'json', temporality: AggregationTemporality): PushMetricExporter {
  const Exporter = kind === 'protobuf' ? OtlpProtoExporter : OtlpJsonExporter;
  return new Exporter({ url: otlpUrl, temporalityPreference: temporality });
}

/** An instrumented LLM server: its own MeterProvider, exporting only when flushed. */
function llmServer(service: string, exp: PushMetricExporter) {
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    readers: [new PeriodicExportingMetricReader({ exporter: exp, exportIntervalMillis: 3_600_000 })],
    views: [
      { instrumentName: TTFT, aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } },
      { instrumentName: QUEUE, aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } },
    ],
  });
  const meter = provider.getMeter('inferwatch-otlp-live');
  const histograms = {
    [REQUEST]: meter.createHistogram(REQUEST, { unit: 's', advice: { explicitBucketBoundaries: REQUEST_BOUNDS } }),
    [TTFT]: meter.createHistogram(TTFT, { unit: 's' }),
    [TPOT]: meter.createHistogram(TPOT, { unit: 's', advice: { explicitBucketBoundaries: TPOT_BOUNDS } }),
    // Named by the operator (--otlp-histogram llm.queue.wait@ms): the exporter sends no unit.
    [QUEUE]: meter.createHistogram(QUEUE),
  };
  return {
    record(name: keyof typeof histograms, valuesMs: readonly number[]) {
      const scale = name === QUEUE ? 1 : 1000;
      for (const ms of valuesMs) histograms[name].record(ms / scale, MODEL);
      observedMs[name]!.push(...valuesMs);
    },
    flush: () => provider.forceFlush(),
    stop: () => provider.shutdown(),
  };
}

beforeAll(async () => {
  testDb = await createTestDatabase('iw_otlp_live');
  process.env.DATABASE_URL = testDb.url;
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-otlp-live-'));
  server = await startIngestServer(path.join(workDir, 'enroll-key'));
  const logFile = path.join(workDir, 'agent.log');
  agent = startAgent({
    serverUrl: server.url,
    keyFile: path.join(workDir, 'enroll-key'),
    stateDir: path.join(workDir, 'agent'),
    intervalS: 1,
    watch: [],
    args: ['--otlp-addr', '127.0.0.1:0', '--otlp-histogram', `${QUEUE}@ms`],
    stderrFd: fs.openSync(logFile, 'w'),
  });
  // Port 0: the agent's log says which port it was given.
  const port = await eventually('the agent to start its otlp intake', async () => {
    for (const line of fs.readFileSync(logFile, 'utf8').split('\n')) {
      if (line.includes('otlp metrics intake started')) return (JSON.parse(line) as { port: number }).port;
    }
    return undefined;
  });
  otlpUrl = `http://127.0.0.1:${port}/v1/metrics`;
});

afterAll(async () => {
  await stopProcess(agent);
  await server?.close();
  await testDb?.drop();
  fs.rmSync(workDir, { recursive: true, force: true });
});

describe('the real OpenTelemetry SDK exporting to the real agent', () => {
  test('delta over protobuf and cumulative over JSON across a restarted exporter arrive once; quantiles agree within the stated error', { timeout: 300_000 }, async () => {
    const random = seeded(4318);

    // Delta temporality, binary protobuf: explicit buckets (request) and an exponential histogram (TTFT).
    const delta = llmServer('vllm-otel', exporter('protobuf', AggregationTemporality.DELTA));
    delta.record(REQUEST, logNormalDurations(random, 400, 1800, 0.9));
    delta.record(TTFT, logNormalDurations(random, 400, 80, 1.1));
    await delta.flush();
    delta.record(REQUEST, logNormalDurations(random, 300, 1800, 0.9));
    delta.record(TTFT, logNormalDurations(random, 300, 80, 1.1));
    await delta.flush();
    // A flush with nothing new sends nothing new.
    await delta.flush();
    await countReaches(REQUEST, 700);
    await countReaches(TTFT, 700);
    await delta.stop();

    // Cumulative temporality, JSON: each export carries everything since the exporter started.
    const first = llmServer('sglang-otel', exporter('json', AggregationTemporality.CUMULATIVE));
    first.record(TPOT, logNormalDurations(random, 300, 25, 0.5));
    first.record(QUEUE, logNormalDurations(random, 300, 12, 1.4));
    await first.flush();
    first.record(TPOT, logNormalDurations(random, 200, 25, 0.5));
    first.record(QUEUE, logNormalDurations(random, 200, 12, 1.4));
    await first.flush();
    await countReaches(TPOT, 500);
    await countReaches(QUEUE, 500);
    await first.stop();
    // The server restarts: a new exporter whose cumulative counts start again, under the same service name.
    const second = llmServer('sglang-otel', exporter('json', AggregationTemporality.CUMULATIVE));
    second.record(TPOT, logNormalDurations(random, 100, 25, 0.5));
    second.record(QUEUE, logNormalDurations(random, 100, 12, 1.4));
    await second.flush();
    await countReaches(TPOT, 600);
    await countReaches(QUEUE, 600);
    await second.stop();

    const { getDb } = await import('../../lib/db');
    const { getLatencyQuantiles } = await import('../../lib/series');
    const { queryRow } = await import('../../lib/db/rows');
    const { z } = await import('zod');
    const db = await getDb();
    const host = await queryRow(db.sql, 'host', z.object({ id: z.number() }), 'SELECT id FROM hosts');
    const tags = await queryRow(db.sql, 'tags', z.object({ tags: z.record(z.string(), z.string()) }), 'SELECT tags::jsonb AS tags FROM latency_samples WHERE name = $1 LIMIT 1', [TTFT]);
    expect(tags!.tags).toEqual({ ...MODEL, service: 'vllm-otel' });

    const agreement: Record<string, string>[] = [];
    for (const name of [REQUEST, TTFT, TPOT, QUEUE]) {
      const { total } = await getLatencyQuantiles(db, {
        scope: { kind: 'host', hostId: host!.id },
        name,
        from: new Date(Date.now() - 3_600_000),
        to: new Date(Date.now() + 60_000),
      });
      const values = observedMs[name]!;
      expect(total.count).toBe(values.length);
      expect(total.meanMs).toBeCloseTo(values.reduce((a, b) => a + b, 0) / values.length, 3);
      for (const [label, q] of Object.entries(QUANTILES) as [keyof typeof QUANTILES, number][]) {
        const reported = total[label]!;
        const exact = exactQuantile(values, q);
        const error = total.bucketError![label];
        expect(error, `${name} ${label} fell in a bounded bucket`).not.toBeNull();
        agreement.push({ name, quantile: label, exactMs: exact.toFixed(2), storedMs: reported.toFixed(2), offPct: ((100 * Math.abs(reported - exact)) / exact).toFixed(2), statedPct: (100 * error!).toFixed(2) });
        expect(Math.abs(reported - exact), `${name} ${label}: ${reported} vs exact ${exact}, stated ±${error}`).toBeLessThanOrEqual(error! * reported);
      }
    }
    console.table(agreement);
  });
});
