import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FindingsEngine } from '../../lib/findings/engine/engine';
import { measureFixEffects } from '../../lib/findings/effects/measure-effects';
import { getFinding, listFindings } from '../../lib/findings/read/list-findings';
import type { Inventory, ProcessSample, Report } from '../../lib/protocol';
import { findingSchema, findingsQuerySchema, type Finding, type FindingEffect } from '../../lib/protocol/findings';
import { MINUTE_MS, floorTo } from '../../lib/protocol/time';
import { LatencySketch, quantileRank } from '../../lib/sketch';
import { expectMatches } from '../support/expect-matches';
import { cleanInventory, loaded, watchedProcess } from '../support/findings-facts';
import { ingestClient, reportSeries } from '../support/ingest-client';
import { makeReport } from '../support/report-factory';
import { createServerDatabase, enrolledHost, type TestDatabase } from './ingest-helpers';
import { rowsOf } from '../support/rows';

const INTERVAL_MS = 10_000;
const SECOND_MS = 1_000;
/** The windows compared: 5 minutes before the change that fixed it, 5 minutes after it resolved. */
const WINDOW_MS = 5 * MINUTE_MS;
const NAME = 'inference.request';

// Two hours ago, whole minutes: every report is fresh for ingest, and every clock handed to the code is explicit.
const BASE = floorTo(Date.now(), MINUTE_MS) - 2 * 3_600_000;
/** Slow reports (OMP_NUM_THREADS=8 on one CPU) every 10 s up to and including this time. */
const SLOW_END = BASE + 20 * MINUTE_MS;
/** The first report of the new inventory (new pid, OMP_NUM_THREADS=1): the inventory change. */
const CHANGE = SLOW_END + INTERVAL_MS;
/** Fast reports every 10 s from CHANGE up to and including this time. */
const FAST_END = BASE + 30 * MINUTE_MS;
/** Cycles: the finding opens on host `fixed` at FIRST_SEEN, on host `late` only at LATE_SEEN; both resolve at RESOLVED. */
const FIRST_SEEN = BASE + 5 * MINUTE_MS;
const LATE_SEEN = CHANGE - MINUTE_MS;
const RESOLVED = CHANGE + 50 * SECOND_MS;
const MEASURE_AFTER = RESOLVED + WINDOW_MS;

const SLOW_PER_REPORT = 10;
const FAST_PER_REPORT = 12;

const iso = (ms: number) => new Date(ms).toISOString();
const utc = (ms: number) => `${iso(ms).slice(11, 16)} UTC`;
const allFindings = (q: Record<string, string> = {}) => findingsQuerySchema.parse({ state: 'all', ...q });

/** Deterministic request latencies of one report: slow ones 90–149 ms, fast ones 20–34 ms. */
const slowValues = (i: number) => Array.from({ length: SLOW_PER_REPORT }, (_, k) => 90 + ((i * 7 + k * 13) % 60));
const fastValues = (i: number) => Array.from({ length: FAST_PER_REPORT }, (_, k) => 20 + ((i * 5 + k * 3) % 15));

/** The exact p99 the sketch approximates: the value at rank ⌈0.99·n⌉. */
function exactP99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[quantileRank(0.99, sorted.length) - 1]!;
}

function inventoryOf(omp: '8' | '1'): Inventory {
  const serve = watchedProcess({
    pid: omp === '8' ? 4242 : 4243,
    threads: omp === '8' ? 9 : 2,
    env: { OMP_NUM_THREADS: omp },
    cpusAllowedList: '0',
    cpusAllowedCount: 1,
    cgroup: null,
    runtimes: loaded('pytorch', 'gnu-openmp'),
  });
  return { ...cleanInventory({ processes: [serve] }), hash: `serve-omp-${omp}` };
}

function processSample(omp: '8' | '1'): ProcessSample {
  return {
    name: 'serve.py',
    pid: omp === '8' ? 4242 : 4243,
    threads: omp === '8' ? 9 : 2,
    cpuCores: 1,
    rssBytes: 2e9,
    voluntaryCtxSwitchesPerS: 50,
    nonvoluntaryCtxSwitchesPerS: omp === '8' ? 4000 : 20,
  };
}

interface Sent {
  ts: number;
  values: number[];
}

/** One host's reports of one phase, every 10 s ending at `endMs`; `sent` collects the latencies each carried. */
function phase(omp: '8' | '1', count: number, endMs: number, seq0: number, sent: Sent[]): Report[] {
  return reportSeries(count, endMs, INTERVAL_MS, (i, ts) => {
    const values = omp === '8' ? slowValues(i) : fastValues(i);
    sent.push({ ts, values });
    const sketch = new LatencySketch();
    for (const v of values) sketch.add(v);
    return makeReport({
      seq: seq0 + i,
      ts,
      inventory: inventoryOf(omp),
      processes: [processSample(omp)],
      latency: [{ name: NAME, tags: { model: 'resnet50' }, sketch: sketch.toWire() }],
    });
  });
}

const SLOW_COUNT = (SLOW_END - BASE) / INTERVAL_MS; // BASE + 10 s … SLOW_END
const FAST_COUNT = (FAST_END - CHANGE) / INTERVAL_MS + 1; // CHANGE … FAST_END

const inWindow = (sent: Sent[], fromMs: number, toMs: number) => sent.filter((s) => s.ts >= fromMs && s.ts < toMs).flatMap((s) => s.values);

/** Within the sketch's relative accuracy (0.8 %), with a little room. */
function expectP99(actual: number | null, values: number[]) {
  const expected = exactP99(values);
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! / expected - 1), `p99 ${actual} vs exact ${expected}`).toBeLessThan(0.01);
}

describe('what a fix bought, over ingested reports', () => {
  let t: TestDatabase;
  let client: ReturnType<typeof ingestClient>;
  let engine: FindingsEngine;
  let fixed: Awaited<ReturnType<typeof enrolledHost>>;
  let late: Awaited<ReturnType<typeof enrolledHost>>;
  const sent: Record<'fixed' | 'late', Sent[]> = { fixed: [], late: [] };
  let finding: Finding;
  let lateFinding: Finding;

  const oversubscribed = async (hostId: number) => {
    const { findings } = await listFindings(t.db, allFindings({ host: String(hostId), rule: 'threads.oversubscribed' }));
    expect(findings).toHaveLength(1);
    return findings[0]!;
  };

  beforeAll(async () => {
    t = await createServerDatabase();
    client = ingestClient(t.db);
    engine = new FindingsEngine(t.db);
    fixed = await enrolledHost(t.db, 'osl-fixed');
    late = await enrolledHost(t.db, 'osl-late');
  });
  afterAll(async () => {
    await client?.close();
    await t?.drop();
  });

  test('PyTorch over GNU OpenMP with OMP_NUM_THREADS=8 pinned to one CPU: threads.oversubscribed opens for serve.py', async () => {
    await client.send(fixed.token, phase('8', SLOW_COUNT, SLOW_END, 1, sent.fixed));
    await client.settle();
    const opened = await engine.runCycle(new Date(FIRST_SEEN));
    expect(opened.failures).toEqual([]);
    finding = await oversubscribed(fixed.hostId);
    expect(finding).toMatchObject({ subject: 'serve.py', state: 'open', severity: 'critical', firstSeenAt: iso(FIRST_SEEN), openedAt: iso(FIRST_SEEN), effect: null });
    expect(finding.evidence.series).toEqual([{ metric: 'process_threads', key: 'serve.py' }, { metric: 'process_cpu', key: 'serve.py' }]);

    // The second host runs the same, but is first judged only a minute before its fix.
    await client.send(late.token, phase('8', SLOW_COUNT, SLOW_END, 1, sent.late));
    await client.settle();
    await engine.runCycle(new Date(LATE_SEEN));
    lateFinding = await oversubscribed(late.hostId);
    expect(lateFinding).toMatchObject({ state: 'open', firstSeenAt: iso(LATE_SEEN) });
  });

  test('after the new inventory (new pid, OMP_NUM_THREADS=1) the next cycle resolves it', async () => {
    await client.send(fixed.token, phase('1', FAST_COUNT, FAST_END, SLOW_COUNT + 1, sent.fixed));
    await client.send(late.token, phase('1', FAST_COUNT, FAST_END, SLOW_COUNT + 1, sent.late));
    await client.settle();
    const result = await engine.runCycle(new Date(RESOLVED));
    expect(result.failures).toEqual([]);
    finding = await oversubscribed(fixed.hostId);
    lateFinding = await oversubscribed(late.hostId);
    for (const f of [finding, lateFinding]) expect(f).toMatchObject({ state: 'resolved', resolvedAt: iso(RESOLVED), effect: null });
  });

  test('until the window after the resolution has passed, the effect is measuring', async () => {
    // An occurrence that never opened fixed nothing: neither a pending one nor (should one exist) a resolved one.
    await t.db.sql.query(
      `INSERT INTO findings (rule_id, host_id, region, subject, severity, state, message, remedy, evidence, first_seen_at, opened_at, resolved_at, last_evaluated_at)
       VALUES ('cpu.steal-high', $1, 'oslo', '', 'warning', 'resolved', 'm', 'r', '{"values":[]}', $2, NULL, $3, $3),
              ('cpu.steal-high', $1, 'oslo', '', 'warning', 'pending', 'm', 'r', '{"values":[]}', $2, NULL, NULL, $3)`,
      [fixed.hostId, new Date(FIRST_SEEN), new Date(RESOLVED)],
    );

    expect(await measureFixEffects(t.db, new Date(MEASURE_AFTER - SECOND_MS), { windowMs: WINDOW_MS })).toBe(0);
    // toMatchObject: the lead may add fields to a measuring effect; these are the ones it must say.
    const measuring: Partial<FindingEffect> = {
      status: 'measuring',
      resolvedAt: iso(RESOLVED),
      measureAfter: iso(MEASURE_AFTER),
      change: null,
      before: null,
      after: null,
      latency: [],
      gauges: [],
      summary: `Resolved at ${utc(RESOLVED)}: measuring what it bought until ${utc(MEASURE_AFTER)}.`,
    };
    expect((await getFinding(t.db, finding.id)).effect).toMatchObject(measuring);
    expectMatches(findingSchema, JSON.parse(JSON.stringify(await getFinding(t.db, finding.id))), 'a finding measuring its effect, as JSON');
    expect((await oversubscribed(late.hostId)).effect).toMatchObject(measuring);

    const never = (await listFindings(t.db, allFindings({ host: String(fixed.hostId), rule: 'cpu.steal-high' }))).findings;
    expect(never.map((f) => [f.state, f.openedAt, f.effect])).toEqual([
      ['pending', null, null],
      ['resolved', null, null],
    ]);
    const rows = await rowsOf<{ finding_id: string }>(t.db.sql, 'SELECT finding_id FROM finding_effects ORDER BY finding_id');
    expect(rows.map((r) => Number(r.finding_id)).sort((a, b) => a - b)).toEqual([finding.id, lateFinding.id].sort((a, b) => a - b));
  });

  test('once it has passed: the change that fixed it, p99 and requests before against after, improved', async () => {
    expect(await measureFixEffects(t.db, new Date(MEASURE_AFTER + SECOND_MS), { windowMs: WINDOW_MS })).toBe(2);
    const effect = (await getFinding(t.db, finding.id)).effect!;
    expectMatches(findingSchema, JSON.parse(JSON.stringify(await getFinding(t.db, finding.id))), 'a finding with its measured effect, as JSON');
    // The listing shows the same stored effect.
    expect((await oversubscribed(fixed.hostId)).effect).toEqual(effect);

    expect(effect).toMatchObject({
      status: 'measured',
      resolvedAt: iso(RESOLVED),
      measureAfter: iso(MEASURE_AFTER),
      before: { from: iso(CHANGE - WINDOW_MS), to: iso(CHANGE) },
      after: { from: iso(RESOLVED), to: iso(MEASURE_AFTER) },
    });
    expect(effect.change).toEqual({
      at: iso(CHANGE),
      changes: ['serve.py OMP_NUM_THREADS 8 → 1', 'serve.py restarted (pid 4242 → 4243)', 'serve.py threads 9 → 2'],
    });

    const before = inWindow(sent.fixed, CHANGE - WINDOW_MS, CHANGE);
    const after = inWindow(sent.fixed, RESOLVED, MEASURE_AFTER);
    // 30 slow reports end at the change; the 5 fast ones between the change and the resolution are in neither window.
    expect([before.length, after.length]).toEqual([30 * SLOW_PER_REPORT, 30 * FAST_PER_REPORT]);
    expect(effect.latency).toHaveLength(1);
    const [latency] = effect.latency;
    expect(latency).toMatchObject({ name: NAME, verdict: 'improved', before: { requests: 300 }, after: { requests: 360 } });
    expectP99(latency!.before.p99Ms, before);
    expectP99(latency!.after.p99Ms, after);
    expect(latency!.before.p99Ms).toBeGreaterThan(140);
    expect(latency!.after.p99Ms).toBeLessThan(35);

    expect(effect.gauges).toEqual([
      { metric: 'process_threads', key: 'serve.py', unit: 'threads', before: 9, after: 2 },
      { metric: 'process_cpu', key: 'serve.py', unit: 'cores', before: 1, after: 1 },
    ]);

    expect(effect.summary).toMatch(/OMP_NUM_THREADS 8 → 1.*p99 `inference\.request`/);
    const ms = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1));
    expect(effect.summary).toBe(
      `Resolved at ${utc(RESOLVED)} by serve.py OMP_NUM_THREADS 8 → 1, serve.py restarted (pid 4242 → 4243), serve.py threads 9 → 2: ` +
        `p99 \`${NAME}\` ${Math.round(latency!.before.p99Ms!)} → ${ms(latency!.after.p99Ms!)} ms (300 / 360 requests); ` +
        'process_threads serve.py 9 → 2 threads; process_cpu serve.py 1 → 1 cores.',
    );
  });

  test('a fix first seen a minute before it: the window before is clipped to that minute, too few requests to compare', async () => {
    const effect = (await getFinding(t.db, lateFinding.id)).effect!;
    expect(effect).toMatchObject({
      status: 'measured',
      change: { at: iso(CHANGE) },
      before: { from: iso(LATE_SEEN), to: iso(CHANGE) },
      after: { from: iso(RESOLVED), to: iso(MEASURE_AFTER) },
    });
    const before = inWindow(sent.late, LATE_SEEN, CHANGE);
    expect(before).toHaveLength(6 * SLOW_PER_REPORT);
    const [latency] = effect.latency;
    expect(latency).toMatchObject({ name: NAME, verdict: 'not-enough-requests', before: { requests: 60 }, after: { requests: 360 } });
    expectP99(latency!.before.p99Ms, before);
    expect(effect.summary).toContain(`${NAME}: not enough requests to compare (60 / 360 requests)`);
    expect(effect.summary).not.toContain('p99 `');
  });

  test('measuring again measures nothing and leaves the stored effects as they were', async () => {
    const read = async () =>
      rowsOf<{ finding_id: string; status: string; measured_at: Date; effect: unknown }>(t.db.sql,
        'SELECT finding_id, status, measured_at, effect FROM finding_effects ORDER BY finding_id',
      );
    const stored = await read();
    expect(stored.map((r) => r.status)).toEqual(['measured', 'measured']);
    const effects = [(await getFinding(t.db, finding.id)).effect, (await getFinding(t.db, lateFinding.id)).effect];

    expect(await measureFixEffects(t.db, new Date(MEASURE_AFTER + MINUTE_MS), { windowMs: WINDOW_MS })).toBe(0);
    expect(await measureFixEffects(t.db, new Date(MEASURE_AFTER + 2 * MINUTE_MS), { windowMs: 2 * WINDOW_MS })).toBe(0);
    expect(await read()).toEqual(stored);
    expect([(await getFinding(t.db, finding.id)).effect, (await getFinding(t.db, lateFinding.id)).effect]).toEqual(effects);
  });
});
