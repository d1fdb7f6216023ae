import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { realisticReport, seededRandom } from '../../bench/_ingest-report';
import { enrollHost } from '../../lib/auth/enroll-host';
import { createEnrollmentKey } from '../../lib/auth/enrollment-keys';
import { closeDb } from '../../lib/db';
import { FindingsEngine } from '../../lib/findings/engine/engine';
import { explainLatency } from '../../lib/findings/latency/read/explain-latency';
import { p99Regression } from '../../lib/findings/rules/latency.p99-regression';
import { createIngestDeps } from '../../lib/ingest/ingest-deps';
import { ingestRequest, type IngestDeps } from '../../lib/ingest/ingest-request';
import { ingestLimits } from '../../lib/ingest/limits';
import type { Inventory, Report } from '../../lib/protocol';
import { latencyExplanationSchema, type LatencyExplanation } from '../../lib/protocol/findings';
import { HOUR_MS, MINUTE_MS, floorTo } from '../../lib/protocol/time';
import { getLatencyQuantiles, rollUp } from '../../lib/series';
import { LatencySketch } from '../../lib/sketch';
import { GET } from '../../app/api/v1/hosts/[id]/latency-explained/route';
import { expectMatches } from '../support/expect-matches';
import { cleanInventory, watchedProcess } from '../support/findings-facts';
import { rowsOf } from '../support/rows';
import { createServerDatabase, jsonBody, type TestDatabase } from './ingest-helpers';

const NAME = 'inference.request';
const NOW = floorTo(Date.now(), MINUTE_MS);
const FROM = NOW - HOUR_MS;
/** Where each planted regression begins: 20 minutes into the current hour. */
const STEP = FROM + 20 * MINUTE_MS;

interface Plan {
  region: string;
  /** p99 × this from STEP on. */
  slowdown?: number;
  stealFromStep?: boolean;
  ompFromStep?: boolean;
  /** A scraped model server (--scrape) whose queue grows from STEP on, while nothing on the host changes. */
  queueFromStep?: boolean;
  /** An LLM engine whose KV cache fills and which preempts from STEP on, its queue growing with it. */
  kvFromStep?: boolean;
  /** Hours of reports before the current hour (a new install has fewer than the baseline's 24). */
  historyHours?: number;
}

const inventoryOf = (omp: string): Inventory => {
  const inv = cleanInventory({ processes: [watchedProcess({ name: 'triton', env: { OMP_NUM_THREADS: omp } })] });
  return { ...inv, hash: `omp-${omp}` };
};

function latencyOf(random: () => number, samples: number, medianMs: number) {
  const sketch = new LatencySketch();
  for (let i = 0; i < samples; i++) sketch.add(medianMs * Math.exp((random() - 0.5) * 0.55 + (random() < 0.02 ? 0.15 : 0)));
  return sketch.toWire();
}

/**
 * The agent's reports of one host as ingest receives them: every 5 minutes over the baseline day, then every minute
 * over the current hour, with the planted cause (and the slowdown) from STEP on.
 */
function reportsOf(plan: Plan, seed: number): Report[] {
  const random = seededRandom(seed);
  const reports: Report[] = [];
  const add = (ts: number, intervalMs: number) => {
    const after = ts >= STEP;
    const report = realisticReport(reports.length + 1, ts, seed * 100_000 + reports.length);
    report.intervalMs = intervalMs;
    report.latency = [{ name: NAME, tags: { model: 'llama-8b' }, sketch: latencyOf(random, (400 * intervalMs) / 60_000, after ? 30 * (plan.slowdown ?? 1) : 30) }];
    if (after && plan.stealFromStep && !('unavailable' in report.cpu)) {
      report.cpu.total.stealPct = 16;
      for (const cpu of report.cpu.perCpu) cpu.stealPct = cpu.cpu === 2 || cpu.cpu === 3 ? 42 : 3;
    }
    if (plan.queueFromStep) {
      report.servers = [{
        name: 'vllm', ok: true, error: null, requestsPerS: 6.7, latencyMeanMs: after ? 75 : 30, queueMeanMs: after ? 45 : 2,
        waiting: after ? 12 : 0.3, running: 16, batchSize: null, droppedSeries: 0,
      }];
    }
    if (plan.kvFromStep) {
      report.servers = [{
        name: 'vllm', ok: true, error: null, requestsPerS: 6.7, latencyMeanMs: after ? 75 : 30, queueMeanMs: after ? 9 : 2,
        waiting: after ? 6 : 0.3, running: 48, batchSize: null, droppedSeries: 0, tokenMeanMs: null,
        kvCachePct: after ? 98 : 61, preemptionsPerMin: after ? 40 : 0,
      }];
    }
    if (reports.length === 0) report.inventory = inventoryOf('4');
    if (plan.ompFromStep && after && !reports.some((r) => r.inventory?.hash === 'omp-16')) report.inventory = inventoryOf('16');
    reports.push(report);
  };
  for (let ts = FROM - (plan.historyHours ?? 24) * HOUR_MS + 30_000; ts < FROM; ts += 5 * MINUTE_MS) add(ts, 5 * MINUTE_MS);
  for (let ts = FROM + 30_000; ts < NOW; ts += MINUTE_MS) add(ts, MINUTE_MS);
  return reports;
}

const PLANS = {
  steal: { region: 'oslo', slowdown: 2.5, stealFromStep: true },
  osloQuiet: { region: 'oslo' },
  omp: { region: 'bergen', slowdown: 2.5, ompFromStep: true },
  bergenQuiet: { region: 'bergen' },
  unexplained: { region: 'tromso', slowdown: 2.5 },
  tromsoQuiet: { region: 'tromso' },
  paris1: { region: 'paris', slowdown: 2.5 },
  paris2: { region: 'paris', slowdown: 2.5 },
  paris3: { region: 'paris', slowdown: 2.5 },
  // Installed two hours before the current one, and half an hour into it: alone in their regions.
  young: { region: 'stavanger', slowdown: 2.5, stealFromStep: true, historyHours: 2 },
  newborn: { region: 'alta', slowdown: 2.5, historyHours: 0 },
  saturated: { region: 'narvik', slowdown: 2.5, queueFromStep: true },
  kvPressure: { region: 'bodo', slowdown: 2.5, kvFromStep: true },
} satisfies Record<string, Plan>;

let testDb: TestDatabase;
let deps: IngestDeps;
const hostIds = {} as Record<keyof typeof PLANS, number>;

async function ingestHost(key: keyof typeof PLANS, seed: number) {
  const plan: Plan = PLANS[key];
  const enrollment = await createEnrollmentKey(testDb.db, { name: `key-${key}`, region: plan.region, labels: {} });
  const host = await enrollHost(testDb.db, enrollment.key, { hostname: key, machineId: null });
  hostIds[key] = host.hostId;
  const reports = reportsOf(plan, seed);
  for (let i = 0; i < reports.length; i += 500) {
    const out = await ingestRequest(
      { authorization: `Bearer ${host.token}`, contentType: 'application/json', ...jsonBody({ reports: reports.slice(i, i + 500) }) },
      deps,
    );
    expect(out.status).toBe(200);
  }
}

const explain = (key: keyof typeof PLANS) =>
  explainLatency(testDb.db.sql, { hostId: hostIds[key], name: NAME, from: new Date(FROM), to: new Date(NOW), now: new Date(NOW) });

beforeAll(async () => {
  testDb = await createServerDatabase();
  process.env.DATABASE_URL = testDb.url;
  const limits = ingestLimits();
  deps = createIngestDeps(testDb.db, { limits: { ...limits, rate: { ...limits.rate, requestBurst: 1e9, reportBurst: 1e9 } } });
  let seed = 1;
  for (const key of Object.keys(PLANS) as (keyof typeof PLANS)[]) await ingestHost(key, seed++);
  await deps.writer.close();
  await rollUp(testDb.db.sql, new Date(NOW), { startAt: new Date(FROM - 26 * HOUR_MS), settleMs: 0, maxChunks: 1000 });
});

afterAll(async () => {
  await closeDb();
  await testDb?.drop();
});

describe('latency explained over ingested reports', () => {
  test('a planted steal rise is the likely cause, with the vCPUs it went to', async () => {
    const out = await explain('steal');
    expect(out).toMatchObject({ verdict: 'regressed', regressed: true, hostRegion: 'oslo' });
    expect(out.ratio).toBeGreaterThan(2);
    expect(out.baseline).toMatchObject({ hours: 24, ofHours: 24 });
    expect(out.causes[0]).toMatchObject({ kind: 'steal', series: { metric: 'cpu_steal', key: null } });
    expect(out.causes[0]!.after! - out.causes[0]!.before!).toBeGreaterThan(8);
    expect(out.causes[0]!.correlation).toBeGreaterThan(0.5);
    expect(out.summary).toMatch(/^p99 of inference\.request rose from \d+ ms to \d+ ms \([\d.]+×\); likely cause: steal [\d.]+ % → [\d.]+ % \(most on vCPUs 2–3\)\.$/);
    expect(out.region).toMatchObject({ method: 'region-p99', region: 'oslo', otherHosts: 1, regressed: false });
  });

  test('a planted OMP_NUM_THREADS change is the likely cause, at the minute it was reported', async () => {
    const out = await explain('omp');
    expect(out.verdict).toBe('regressed');
    expect(out.causes.map((c) => c.kind)).toEqual(['inventory']);
    expect(out.causes[0]!.summary).toBe(`inventory change at ${new Date(STEP + 30_000).toISOString().slice(11, 16)} UTC: triton OMP_NUM_THREADS 4 → 16`);
  });

  test('a regression with nothing moving on the host says so rather than invent a cause', async () => {
    const out = await explain('unexplained');
    expect(out.verdict).toBe('regressed');
    expect(out.causes).toEqual([]);
    expect(out.summary).toMatch(/; no host-level cause found\.$/);
  });

  test('a regression with only the model server’s queue rising is saturation, not the host', async () => {
    const out = await explain('saturated');
    expect(out.verdict).toBe('saturated');
    expect(out.causes.map((c) => [c.kind, c.subject, c.series?.metric])).toEqual([
      ['queue', 'vllm', 'server_queue_mean'],
      ['queue', 'vllm', 'server_waiting'],
    ]);
    expect(out.summary).toMatch(/with the model server’s queue \(vllm mean queue time [\d.]+ → [\d.]+ ms; also vllm requests waiting [\d.]+ → [\d.]+\) and no host cause: saturation — add replicas\.$/);
  });

  test('a regression with an LLM engine’s KV cache full and preempting is KV pressure, ahead of the queue it grows', async () => {
    const out = await explain('kvPressure');
    expect(out.verdict).toBe('kv-pressure');
    expect(out.causes.map((c) => [c.kind, c.subject, c.series?.metric])).toEqual([
      ['kv-cache', 'vllm', 'server_preemptions'],
      ['kv-cache', 'vllm', 'server_kv_cache'],
      ['queue', 'vllm', 'server_waiting'],
    ]);
    // The cache as it stood while p99 was slow, not its hour's average; preemptions as the hour's average.
    expect(out.causes[1]).toMatchObject({ before: 61, after: 98 });
    expect(out.summary).toMatch(
      /with vllm: KV cache at 98 % and 2\d(\.\d)? preemptions\/min \(from 0\); also vllm requests waiting [\d.]+ → [\d.]+, and no host cause: KV cache pressure .* raise `gpu_memory_utilization`/,
    );
  });

  test('when the rest of the region regressed at the same time it is region-wide', async () => {
    const out = await explain('paris1');
    expect(out.verdict).toBe('region-wide');
    expect(out.region).toMatchObject({ method: 'region-p99', otherHosts: 2, regressed: true });
    expect(out.causes[0]!.kind).toBe('region');
  });

  test('a new install with 2 h of baseline is judged, and says how much baseline it had', async () => {
    const out = await explain('young');
    expect(out).toMatchObject({ verdict: 'regressed', baseline: { hours: 2, ofHours: 24 } });
    expect(out.causes[0]!.kind).toBe('steal');
    expect(out.summary).toMatch(/^p99 of inference\.request rose from \d+ ms to \d+ ms \([\d.]+×; baseline: 2 h of 24\); likely cause: steal /);
  });

  test('without an hour of baseline it does not judge, and says what it has and needs', async () => {
    const out = await explain('newborn');
    expect(out).toMatchObject({ verdict: 'insufficient-data', regressed: false, baseline: { hours: 0, ofHours: 24, p99Ms: null } });
    expect(out.summary).toBe('No baseline for inference.request yet: 0 h of 24 with requests (it needs at least 1 h).');
  });

  test('a quiet host did not regress, and its p99s are the read API\'s own', async () => {
    const out = await explain('osloQuiet');
    expect(out).toMatchObject({ verdict: 'no-regression', regressed: false, causes: [] });
    expect(out.current.requests).toBe(60 * 400);
    const latency = await getLatencyQuantiles(testDb.db, { scope: { kind: 'host', hostId: hostIds.osloQuiet }, name: NAME, from: new Date(FROM), to: new Date(NOW) });
    expect(out.current.p99Ms).toBe(latency.total.p99);
  });
});

const call = async (path: string, id?: string) =>
  GET(new Request(`http://localhost${path}`), { params: Promise.resolve({ id: id ?? '0' }) });

describe('GET /api/v1/hosts/:id/latency-explained', () => {
  test('answers the explanation of the range it is given', async () => {
    const id = String(hostIds.steal);
    const response = await call(`/api/v1/hosts/${id}/latency-explained?name=${NAME}&from=${FROM}&to=${NOW}`, id);
    expect(response.status).toBe(200);
    const body = (await response.json()) as LatencyExplanation;
    expect(body.range).toEqual({ from: new Date(FROM).toISOString(), to: new Date(NOW).toISOString() });
    const fromHour = floorTo(FROM, HOUR_MS);
    expect(body.baselineRange).toEqual({ from: new Date(fromHour - 24 * HOUR_MS).toISOString(), to: new Date(fromHour).toISOString() });
    expect(body.causes[0]!.kind).toBe('steal');
  });

  test('defaults to the last hour against the 24 whole hours before its hour', async () => {
    const id = String(hostIds.steal);
    const body = (await (await call(`/api/v1/hosts/${id}/latency-explained?name=${NAME}`, id)).json()) as LatencyExplanation;
    const rangeMs = Date.parse(body.range.to) - Date.parse(body.range.from);
    expect(rangeMs).toBe(HOUR_MS);
    expect(Date.parse(body.baselineRange.to)).toBe(floorTo(Date.parse(body.range.from), HOUR_MS));
    expect(Date.now() - Date.parse(body.range.to)).toBeLessThan(60_000);
  });

  test.each([
    ['a missing name', '?from=0', 'name'],
    ['from after to', `?name=${NAME}&from=2000&to=1000`, 'from'],
    ['a time without its zone', `?name=${NAME}&to=2026-01-31T12:00:00`, 'to'],
  ])('%s is 400 naming the parameter', async (_, query, field) => {
    const response = await call(`/api/v1/hosts/1/latency-explained${query}`, '1');
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.details.map((d: { path: string }) => d.path)).toContain(field);
  });

  test('answers every planted case as its OpenAPI schema says: each cause kind and region check found here', async () => {
    for (const key of Object.keys(PLANS) as (keyof typeof PLANS)[]) {
      const id = String(hostIds[key]);
      const response = await call(`/api/v1/hosts/${id}/latency-explained?name=${NAME}&from=${FROM}&to=${NOW}`, id);
      expect(response.status).toBe(200);
      expectMatches(latencyExplanationSchema, await response.json(), `the explanation of ${key}`);
    }
  });

  test('an unknown host is 404', async () => {
    expect((await call(`/api/v1/hosts/999999/latency-explained?name=${NAME}`, '999999')).status).toBe(404);
  });
});

describe('the findings rule latency.p99-regression over the same reports', () => {
  let findings: { host_id: number; subject: string; message: string; evidence: { causes: { kind: string }[] } }[];

  beforeAll(async () => {
    const engine = new FindingsEngine(testDb.db, { rules: [p99Regression] });
    // The first cycles fill the engine's rings a few minutes and hours at a time; until then it judges nothing.
    const first = await engine.runCycle(new Date(NOW + 5_000));
    expect(first.verdicts).toBe(0);
    for (let cycle = 0; cycle < 12; cycle++) await engine.runCycle(new Date(NOW + 5_000));
    findings = await rowsOf<(typeof findings)[number]>(
      testDb.db.sql,
      `SELECT host_id, subject, message, evidence FROM findings WHERE rule_id = 'latency.p99-regression' AND state = 'open'`,
    );
  });

  const findingOf = (key: keyof typeof PLANS) => findings.filter((f) => f.host_id === hostIds[key]);

  test('the planted steal rise is its likely cause, in the message and the evidence', () => {
    const [finding, ...more] = findingOf('steal');
    expect(more).toEqual([]);
    expect(finding!.subject).toBe(NAME);
    // 13 cycles have read 13 of the baseline's 24 hours, an hour each: the verdict stands on those and says so.
    expect(finding!.message).toMatch(/^p99 of inference\.request rose from \d+ ms to \d+ ms \([\d.]+×; baseline: 13 h of 24\); likely cause: steal [\d.]+ % → [\d.]+ % \(most on vCPUs 2–3\)\.$/);
    expect(finding!.evidence.causes.map((c) => c.kind)).toEqual(['steal']);
  });

  test('the planted OMP_NUM_THREADS change is its likely cause', () => {
    expect(findingOf('omp')[0]!.message).toMatch(/likely cause: inventory change at \d\d:\d\d UTC: triton OMP_NUM_THREADS 4 → 16\.$/);
  });

  test('a regression with nothing moving is raised without a cause', () => {
    expect(findingOf('unexplained')[0]!.message).toMatch(/; no host-level cause found\.$/);
  });

  test('a new install\'s regression is raised on its short baseline, and says so', () => {
    // The rule's baseline ends at the window's hour: 2 h of history, and the hour before the window's when it has moved on.
    expect(findingOf('young')[0]!.message).toMatch(/\([\d.]+×; baseline: [23] h of 24\); likely cause: steal /);
  });

  test('a saturated model server is raised with its queue and the remedy to add replicas', () => {
    const [finding] = findingOf('saturated');
    expect(finding!.message).toMatch(/no host cause: saturation — add replicas\.$/);
    expect(finding!.evidence.causes.map((c) => c.kind)).toEqual(['queue', 'queue']);
  });

  test('an engine out of KV cache is raised with its preemptions and the remedy for its memory budget', () => {
    const [finding] = findingOf('kvPressure');
    expect(finding!.message).toMatch(/KV cache pressure \(evicted requests are computed again\)/);
    expect(finding!.evidence.causes.map((c) => c.kind)).toEqual(['kv-cache', 'kv-cache', 'queue']);
  });

  test('quiet hosts and a region-wide regression raise nothing', () => {
    for (const key of ['osloQuiet', 'bergenQuiet', 'tromsoQuiet', 'paris1', 'paris2', 'paris3'] as const) expect(findingOf(key)).toEqual([]);
  });
});
