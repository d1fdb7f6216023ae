import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SecretBox } from '../../lib/alerts/channels/secret-box';
import { DEFAULT_ALERT_RULES } from '../../lib/alerts/default-rules';
import type { AlertCycleResult } from '../../lib/alerts/engine';
import { startAlerting, type Alerting } from '../../lib/alerts/scheduler';
import { ensureDefaultRules } from '../../lib/alerts/store/rules';
import { closeDb, getDb } from '../../lib/db';
import { closeIngest, ingestWithProcessDatabase } from '../../lib/server/process-ingest';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { alertRows, enableOnly, SECRET_KEY, shapedReport } from './alerts-helpers';
import { enrolledHost, jsonBody } from './ingest-helpers';

let testDb: TestDatabase;
let alerting: Alerting;
const cycles: AlertCycleResult[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase();
  process.env.DATABASE_URL = testDb.url;
  const db = await getDb();
  await ensureDefaultRules(db.sql, DEFAULT_ALERT_RULES);
  await enableOnly(db, ['steal-spike']);
  // Full cycles an hour apart: only the ingest hook can make this test's cycle happen.
  alerting = await startAlerting(db, { publicUrl: 'http://iw.test', box: new SecretBox(SECRET_KEY), intervalMs: 3_600_000, onCycle: (c) => cycles.push(c) });
});

afterAll(async () => {
  await alerting?.stop();
  await closeIngest();
  await closeDb();
  await testDb?.drop();
});

describe('the ingest hook as the server wires it', () => {
  test('a report stored through the process’s ingest has its host evaluated within a second, without a full cycle', async () => {
    const db = await getDb();
    await new Promise<void>((resolve) => {
      const wait = () => (cycles.length > 0 ? resolve() : setTimeout(wait, 20));
      wait();
    });
    expect(cycles.map((c) => c.targeted)).toEqual([false]);
    const host = await enrolledHost(db, 'gpu-hook');
    const now = Date.now();
    const reports = [0, 1, 2, 3, 4, 5].map((i) => shapedReport(i + 1, now - (5 - i) * 10_000, { stealPct: 35, perCpuStealPct: [35, 35, 35, 35] }));
    const out = await ingestWithProcessDatabase({ authorization: `Bearer ${host.token}`, contentType: 'application/json', ...jsonBody({ reports }) });
    expect(out.status).toBe(200);
    const deadline = Date.now() + 15_000;
    while (!cycles.some((c) => c.targeted) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const targeted = cycles.filter((c) => c.targeted);
    expect(targeted).toHaveLength(1);
    expect(targeted[0]).toMatchObject({ hosts: 1, transitions: { pending: 1 } });
    expect((await alertRows(db, 'steal-spike')).map((a) => [a.labels.host, a.state])).toEqual([['gpu-hook', 'pending']]);
  });
});
