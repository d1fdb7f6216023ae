import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_ALERT_RULES } from '../../lib/alerts/default-rules';
import { readSloStatus } from '../../lib/alerts/read/slo-status';
import { ensureDefaultRules } from '../../lib/alerts/store/rules';
import { openDatabase, type Database } from '../../lib/db/open';
import type { SketchWire } from '../../lib/protocol';
import { rollUp } from '../../lib/series';
import { LatencySketch } from '../../lib/sketch';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { HOUR_MS, MINUTE_MS, insertHost, insertLatency } from './series-support';

// The SLO page's numbers from histograms stored as agents report them: part rolled up into the region rollups, part
// still raw, so both sources are read. Every expected number is counted by hand from the values inserted.
const TTFT = 'vllm:time_to_first_token_seconds';
const ITL = 'vllm:inter_token_latency_seconds';
const LLAMA = '{"model_name":"llama"}';

let testDb: TestDatabase;
let db: Database;
const now = new Date(Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS);
const hosts = { oslo1: 0, oslo2: 0, fra1: 0 };

function sketch(...groups: [count: number, ms: number][]): SketchWire {
  const s = new LatencySketch();
  for (const [count, ms] of groups) for (let i = 0; i < count; i++) s.add(ms);
  return s.toWire();
}

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = await openDatabase({ kind: 'server', url: testDb.url });
  await ensureDefaultRules(db.sql, DEFAULT_ALERT_RULES);
  hosts.oslo1 = await insertHost(db.sql, { hostname: 'oslo-gpu-1', region: 'oslo' });
  hosts.oslo2 = await insertHost(db.sql, { hostname: 'oslo-gpu-2', region: 'oslo' });
  hosts.fra1 = await insertHost(db.sql, { hostname: 'fra-cpu-1', region: 'frankfurt' });
  const threeHoursAgo = new Date(now.getTime() - 3 * HOUR_MS);
  const twentyMinutesAgo = new Date(now.getTime() - 20 * MINUTE_MS);
  // Three hours ago every first token came within the objective; in the last hour one host's did not.
  await insertLatency(db.sql, hosts.oslo1, threeHoursAgo, TTFT, sketch([100, 500]), LLAMA);
  await insertLatency(db.sql, hosts.oslo1, twentyMinutesAgo, TTFT, sketch([90, 500], [10, 3000]), LLAMA);
  await insertLatency(db.sql, hosts.oslo2, twentyMinutesAgo, TTFT, sketch([100, 400]), LLAMA);
  await insertLatency(db.sql, hosts.oslo1, twentyMinutesAgo, ITL, sketch([1000, 40]), LLAMA);
  // A plain request latency: 200 ms is its objective, and a 500 ms first token would have spent it.
  await insertLatency(db.sql, hosts.fra1, twentyMinutesAgo, 'predict', sketch([100, 150], [5, 500]), '{}');
  // The older hours go into the region rollups; the last minutes stay raw.
  await rollUp(db.sql, new Date(now.getTime() - 2 * HOUR_MS), { startAt: new Date(now.getTime() - 4 * HOUR_MS), settleMs: 0 });
});

afterAll(async () => {
  await db?.close();
  await testDb?.drop();
});

describe('readSloStatus', () => {
  test('TTFT, ITL and request latency are separate objectives, each with its own latency; budget and burn count slow requests', async () => {
    const status = await readSloStatus(db.sql, now);
    expect(status.budgetWindowMs).toBe(28 * 24 * HOUR_MS);
    const byTitle = Object.fromEntries(status.objectives.map((o) => [o.title, o]));
    expect(Object.keys(byTitle).sort()).toEqual([
      '99 % of inter-token latency ≤ 100 ms',
      '99 % of request latency ≤ 200 ms',
      '99 % of time to first token ≤ 1000 ms',
    ]);

    const ttft = byTitle['99 % of time to first token ≤ 1000 ms']!;
    expect(ttft.ruleIds).toEqual(['ttft-slo-fast-burn', 'ttft-slo-slow-burn']);
    expect(ttft.rows).toHaveLength(1);
    const [row] = ttft.rows;
    expect(row).toMatchObject({ region: 'oslo', series: TTFT, kind: 'ttft', model: 'llama', requests: 300, slow: 10 });
    // 10 of 300 slow against a 1 % budget: 3.33 budgets spent over the window, 5× burn in the last hour (10 of 200).
    expect(row!.budgetLeft).toBeCloseTo(1 - 10 / 300 / 0.01, 9);
    expect(row!.burn1h).toBeCloseTo(10 / 200 / 0.01, 9);
    expect(row!.burn6h).toBeCloseTo(10 / 300 / 0.01, 9);
    expect(row!.worstHosts).toEqual([{ hostId: hosts.oslo1, hostname: 'oslo-gpu-1', requests: 100, slowShare: 0.1 }]);

    const itl = byTitle['99 % of inter-token latency ≤ 100 ms']!;
    expect(itl.rows).toEqual([expect.objectContaining({ series: ITL, requests: 1000, slow: 0, budgetLeft: 1, burn1h: 0, worstHosts: [] })]);

    const request = byTitle['99 % of request latency ≤ 200 ms']!;
    expect(request.ruleIds).toEqual(['latency-slo-fast-burn', 'latency-slo-slow-burn']);
    // The TTFT and ITL series are not request latencies: only `predict` is judged at 200 ms.
    expect(request.rows.map((r) => [r.region, r.series, r.model, r.requests, r.slow])).toEqual([['frankfurt', 'predict', null, 105, 5]]);
    expect(request.rows[0]!.budgetLeft).toBeCloseTo(1 - 5 / 105 / 0.01, 9);
  });

  test('disabled rules take their objective off the page', async () => {
    await db.sql.query(`UPDATE alert_rules SET enabled = false WHERE id LIKE 'itl-%'`);
    const status = await readSloStatus(db.sql, now);
    expect(status.objectives.map((o) => o.ruleIds[0])).not.toContain('itl-slo-fast-burn');
    await db.sql.query(`UPDATE alert_rules SET enabled = true WHERE id LIKE 'itl-%'`);
  });
});
