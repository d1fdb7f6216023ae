import { afterAll, beforeAll, expect, test } from 'vitest';
import { closeDb } from '../../lib/db';
import { openDatabase, type Database } from '../../lib/db/open';
import { GET as getRuleDoc } from '../../app/api/v1/findings/rules/[id]/route';
import { GET as getSummary } from '../../app/api/v1/findings/summary/route';
import { summarizeFindings } from '../../lib/findings/read/summarize-findings';
import { findingsSummaryQuerySchema, type FindingsSummaryResponse } from '../../lib/protocol/findings';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { insertHost } from './series-support';

let testDb: TestDatabase;
let db: Database;
const now = new Date('2026-12-01T12:00:00Z');
const hour = 3_600_000;

beforeAll(async () => {
  testDb = await createTestDatabase();
  process.env.DATABASE_URL = testDb.url;
  db = await openDatabase({ kind: 'server', url: testDb.url });
  const a = await insertHost(db.sql, { hostname: 'osl-a', region: 'oslo', labels: { team: 'ml' } });
  const b = await insertHost(db.sql, { hostname: 'osl-b', region: 'oslo' });
  const c = await insertHost(db.sql, { hostname: 'fra-c', region: 'frankfurt', labels: { team: 'ml' } });
  const rows: [string, number, string, string, string, Date | null, Date | null][] = [
    // rule, host, region, severity, state, ack_at, ack_expires_at
    ['cpu.steal-high', a, 'oslo', 'warning', 'open', null, null],
    ['cpu.steal-high', b, 'oslo', 'critical', 'open', new Date(now.getTime() - hour), null],
    ['cpu.steal-high', c, 'frankfurt', 'warning', 'open', new Date(now.getTime() - 2 * hour), new Date(now.getTime() - hour)],
    ['threads.oversubscribed', a, 'oslo', 'warning', 'open', null, null],
    ['threads.oversubscribed', a, 'oslo', 'warning', 'open', null, null],
    ['cpu.avx2-missing', c, 'frankfurt', 'critical', 'resolved', null, null],
    ['storage.iowait-high', b, 'oslo', 'info', 'pending', null, null],
  ];
  for (const [i, [rule, host, region, severity, state, ackAt, ackExpires]] of rows.entries()) {
    await db.sql.query(
      `INSERT INTO findings (rule_id, host_id, region, subject, severity, state, message, remedy, evidence, first_seen_at, opened_at, resolved_at,
                             last_evaluated_at, ack_at, ack_reason, ack_expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'm', 'r', '{}', $7, $7, $8, $7, $9, $10, $11)`,
      [rule, host, region, `s${i}`, severity, state, new Date(now.getTime() - (10 - i) * hour), state === 'resolved' ? now : null, ackAt, ackAt ? 'known' : null, ackExpires],
    );
  }
});
afterAll(async () => {
  await closeDb();
  await db?.close();
  await testDb?.drop();
});

const summarize = (query: Record<string, string>) => summarizeFindings(db, findingsSummaryQuerySchema.parse(query), now);
const brief = (response: FindingsSummaryResponse) =>
  response.rules.map((r) => [r.ruleId, r.counts.critical, r.counts.warning, r.counts.info, r.hosts, r.acknowledged]);

test('open findings are counted per rule, the rule with a critical one first, then by count; a lapsed acknowledgement does not count', async () => {
  const summary = await summarize({});
  expect(brief(summary)).toEqual([
    ['cpu.steal-high', 1, 2, 0, 3, 1],
    ['threads.oversubscribed', 0, 2, 0, 1, 0],
  ]);
  expect(summary.total).toBe(5);
  expect(summary.rules[0]).toMatchObject({ title: 'Noisy neighbour: CPU steal', category: 'noisy-neighbours' });
});

test.each([
  [{ region: 'frankfurt' }, [['cpu.steal-high', 0, 1, 0, 1, 0]]],
  [{ labels: 'team:ml' }, [['cpu.steal-high', 0, 2, 0, 2, 0], ['threads.oversubscribed', 0, 2, 0, 1, 0]]],
  [{ severity: 'critical' }, [['cpu.steal-high', 1, 0, 0, 1, 1]]],
  [{ state: 'resolved' }, [['cpu.avx2-missing', 1, 0, 0, 1, 0]]],
  [{ state: 'pending' }, [['storage.iowait-high', 0, 0, 1, 1, 0]]],
  [{ state: 'all', region: 'frankfurt' }, [['cpu.avx2-missing', 1, 0, 0, 1, 0], ['cpu.steal-high', 0, 1, 0, 1, 0]]],
])('the list’s filters apply: %o', async (query, expected) => {
  expect(brief(await summarize(query as Record<string, string>))).toEqual(expected);
});

test('GET /api/v1/findings/summary answers the same, and a bad filter with the error envelope', async () => {
  const ok = await getSummary(new Request('http://x/api/v1/findings/summary?region=oslo'));
  expect(ok.status).toBe(200);
  expect(brief((await ok.json()) as FindingsSummaryResponse)).toEqual([
    ['cpu.steal-high', 1, 1, 0, 2, 1],
    ['threads.oversubscribed', 0, 2, 0, 1, 0],
  ]);
  const bad = await getSummary(new Request('http://x/api/v1/findings/summary?severity=loud'));
  expect(bad.status).toBe(400);
  expect((await bad.json()).error.code).toBe('invalid_payload');
});

test('GET /api/v1/findings/rules/:id serves a registered rule’s doc page, and nothing for any other name', async () => {
  const context = (id: string) => ({ params: Promise.resolve({ id }) });
  const doc = await getRuleDoc(new Request('http://x'), context('cpu.steal-high'));
  expect(doc.status).toBe(200);
  const body = (await doc.json()) as { rule: { id: string; thresholds: { name: string }[] }; markdown: string };
  expect(body.rule.id).toBe('cpu.steal-high');
  expect(body.rule.thresholds.map((t) => t.name)).toEqual(['warningPct', 'criticalPct', 'clearPct']);
  expect(body.markdown).toMatch(/^# cpu\.steal-high — /);
  for (const id of ['../../package.json', 'cpu.steal-high.md', 'README']) {
    expect((await getRuleDoc(new Request('http://x'), context(id))).status).toBe(404);
  }
});
