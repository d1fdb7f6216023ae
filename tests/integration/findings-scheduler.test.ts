import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { startFindingsScheduler, type FindingsScheduler, type FindingsSchedulerOptions } from '../../lib/findings/engine/scheduler';
import { DAY_MS, HOUR_MS } from '../../lib/protocol/time';
import { cleanInventory } from '../support/findings-facts';
import { createServerDatabase, enrolledHost, type TestDatabase } from './ingest-helpers';
import { rowsOf } from '../support/rows';

let t: TestDatabase;
let scheduler: FindingsScheduler | undefined;
const errors: unknown[] = [];

// Timers an hour apart: only runOnce (and the cycle a start runs) judges, unless a test polls sooner.
const start = (options: FindingsSchedulerOptions = {}) =>
  (scheduler = startFindingsScheduler(t.db, { intervalMs: HOUR_MS, inventoryPollMs: HOUR_MS, onError: (err) => errors.push(err), ...options }));

beforeAll(async () => {
  t = await createServerDatabase();
});
afterEach(async () => {
  await scheduler?.stop();
  scheduler = undefined;
  expect(errors).toEqual([]);
});
afterAll(async () => {
  await t.drop();
});

test('a full cycle deletes resolved occurrences older than the history it keeps, and no others', async () => {
  const now = new Date();
  const resolved = (subject: string, resolvedAt: Date) =>
    t.db.sql.query(
      `INSERT INTO findings (rule_id, host_id, region, subject, severity, state, message, remedy, evidence, first_seen_at, opened_at, resolved_at, last_evaluated_at)
       VALUES ('region.rtt-gap', NULL, 'oslo', $1, 'warning', 'resolved', 'm', 'r', '{}', $2, $2, $2, $2)`,
      [subject, resolvedAt],
    );
  await resolved('past the history', new Date(now.getTime() - 11 * DAY_MS));
  await resolved('within it', new Date(now.getTime() - 9 * DAY_MS));

  await start({ historyDays: 10, now: () => now }).runOnce();
  const rows = await rowsOf<{ subject: string }>(t.db.sql, `SELECT subject FROM findings WHERE state = 'resolved'`);
  expect(rows.map((r) => r.subject)).toEqual(['within it']);
});

test('a new inventory snapshot is judged at once, in a cycle of its host alone', async () => {
  const changed = await enrolledHost(t.db, 'osl-changed');
  await enrolledHost(t.db, 'osl-same');
  let targeted!: (hostIds: readonly number[]) => void;
  const judged = new Promise<readonly number[]>((resolve) => (targeted = resolve));
  // The first full cycle marks the newest snapshot; a poll after it finds the one inserted below.
  await start({ inventoryPollMs: 20, onCycle: (_result, hostIds) => hostIds && targeted(hostIds) }).runOnce();

  await t.db.sql.query(`INSERT INTO inventory_snapshots (host_id, hash, taken_at, data) VALUES ($1, 'new', now(), $2::jsonb)`, [
    changed.hostId,
    JSON.stringify(cleanInventory()),
  ]);
  expect(await judged).toEqual([changed.hostId]);
});
