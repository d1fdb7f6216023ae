import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { realisticReport } from '../../bench/_ingest-report';
import { ingestRequest, type IngestDeps } from '../../lib/ingest/ingest-request';
import { createIngestDeps } from '../../lib/ingest/ingest-deps';
import type { Inventory, Report } from '../../lib/protocol';
import { createServerDatabase, enrolledHost, jsonBody, type TestDatabase } from './ingest-helpers';
import { rowsOf } from '../support/rows';

const inventory = (hash: string): Inventory => ({
  hash,
  host: { kernel: '6.1.0', memTotalBytes: 8e9, onlineCpus: 8 },
  cpu: { unavailable: 'test' },
  disks: [],
  dataPaths: [],
  cgroup: { unavailable: 'test' },
  processes: [],
});

const errorOf = (body: unknown) => (body as { error: { code: string; message: string; details?: { path: string }[] } }).error;

// A NUL cannot travel in PostgreSQL's text protocol: inlined into the flush's simple-query message it broke the
// message, and with it every report of every host in the same flush.
describe('a NUL character in a wire string, on a PostgreSQL server', () => {
  let t: TestDatabase;
  let deps: IngestDeps;
  beforeAll(async () => {
    t = await createServerDatabase();
    deps = createIngestDeps(t.db);
  });
  afterAll(async () => {
    await deps.writer.close();
    await t.drop();
  });

  const post = (token: string, value: unknown) =>
    ingestRequest({ authorization: `Bearer ${token}`, contentType: 'application/json', ...jsonBody(value) }, deps);
  const reportWith = (seq: number, patch: (r: Report) => void) => {
    const r = realisticReport(seq, Date.now() - 60_000 + seq);
    patch(r);
    return r;
  };
  const stored = async (hostId: number) =>
    (await rowsOf<{ n: number }>(t.db.sql, 'SELECT count(*)::int AS n FROM report_ledger WHERE host_id = $1', [hostId]))[0]!.n;

  test('is refused with a 400 naming the field, and a good report flushed beside it is stored', async () => {
    const [busy, bad, good] = [await enrolledHost(t.db), await enrolledHost(t.db), await enrolledHost(t.db)];
    // The first request takes the one flush slot; the next two queue behind it and go out in one flush together.
    const answers = await Promise.all([
      post(busy.token, reportWith(1, (r) => { r.inventory = inventory('busy'); })),
      post(bad.token, reportWith(1, (r) => { r.inventory = inventory('abc\u0000def'); })),
      post(good.token, reportWith(1, (r) => { r.inventory = inventory('good'); })),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 400, 200]);
    expect(errorOf(answers[1]!.body)).toMatchObject({ code: 'invalid_payload', message: expect.stringContaining('inventory.hash') });
    expect(errorOf(answers[1]!.body).details?.[0]?.path).toBe('inventory.hash');
    expect([await stored(busy.hostId), await stored(bad.hostId), await stored(good.hostId)]).toEqual([1, 0, 1]);
  });

  test('is refused wherever it is: in a batch, a record key, a latency tag or a process name', async () => {
    const host = await enrolledHost(t.db);
    const cases: [string, (r: Report) => void][] = [
      ['reports.1.host.hostname', (r) => { r.host.hostname = 'vm\u0000'; }],
      ['reports.1.latency.0.tags.\u0000model', (r) => { r.latency[0]!.tags = { '\u0000model': 'x' }; }],
      ['reports.1.processes.0.name', (r) => { r.processes[0]!.name = 'serve\u0000'; }],
    ];
    for (const [path, patch] of cases) {
      const out = await post(host.token, { reports: [reportWith(10, () => {}), reportWith(11, patch)] });
      expect(out.status).toBe(400);
      expect(errorOf(out.body).details?.[0]?.path).toBe(path);
    }
    expect(await stored(host.hostId)).toBe(0);
    expect((await post(host.token, reportWith(12, () => {}))).status).toBe(200);
  });
});
