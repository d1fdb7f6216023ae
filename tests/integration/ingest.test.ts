import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { realisticReport } from '../../bench/_ingest-report';
import { revokeHostToken } from '../../lib/auth/authenticate-host';
import type { Database } from '../../lib/db/open';
import { poolSql } from '../../lib/db/sql';
import { getFleetSummary } from '../../lib/fleet/fleet-summary';
import { rollUp } from '../../lib/series/rollup';
import { ingestRequest, type IngestDeps, type IngestInput } from '../../lib/ingest/ingest-request';
import { createIngestDeps } from '../../lib/ingest/ingest-deps';
import { ingestLimits } from '../../lib/ingest/limits';
import { GroupCommitWriter, type FlushOutcome } from '../../lib/ingest/write/group-commit/group-commit-writer';
import { RECORD_HOST_PROGRESS_SQL } from '../../lib/hosts/store';
import type { Report } from '../../lib/protocol';
import {
  createEmbeddedDatabase,
  createServerDatabase,
  enrolledHost,
  jsonBody,
  rowCounts,
  type TestDatabase,
} from './ingest-helpers';
import { rowsOf } from '../support/rows';

const NOW = Date.now();
const report = (seq: number, patch: (r: Report) => void = () => {}): Report => {
  const r = realisticReport(seq, NOW - 60_000 + seq * 10);
  patch(r);
  return r;
};

function post(deps: IngestDeps, token: string | null, value: unknown, extra: Partial<IngestInput> = {}) {
  return ingestRequest({ authorization: token ? `Bearer ${token}` : null, contentType: 'application/json', ...jsonBody(value), ...extra }, deps);
}

// The group-commit writer writes host progress every few seconds; the tests ask for it at once.
async function writeHostProgress(deps: IngestDeps): Promise<void> {
  if (deps.writer instanceof GroupCommitWriter) await deps.writer.writeHostProgress();
}

/** A host's rows of a per-CPU or per-disk view, every column, with ts as epoch ms. */
async function viewRows(db: Database, view: 'cpu_samples' | 'disk_samples', hostId: number) {
  const rows = await rowsOf<{ host_id: number; ts: Date }>(db.sql, `SELECT * FROM ${view} WHERE host_id = $1`, [hostId]);
  return rows.map(({ host_id, ts, ...rest }) => ({ host_id, ts: new Date(ts).getTime(), ...rest }));
}

/** Counts the host-progress UPDATEs sent through the pool (the queries still run). */
function countHostUpdates(pool: pg.Pool) {
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  const counter = { count: 0, restore: () => { pool.query = query as pg.Pool['query']; } };
  pool.query = ((...args: unknown[]) => {
    const config = args[0] as { text?: string } | string;
    if ((typeof config === 'string' ? config : config.text) === RECORD_HOST_PROGRESS_SQL) counter.count++;
    return query(...args);
  }) as pg.Pool['query'];
  return counter;
}

/** The environment's limits without per-host pacing, so a test's outcome cannot depend on how fast it runs. */
function unpacedLimits() {
  const limits = ingestLimits();
  return { ...limits, rate: { ...limits.rate, requestBurst: 1e9, reportBurst: 1e9 } };
}

const errorOf = (body: unknown) => (body as { error: { code: string; message: string; details?: { path: string }[] } }).error;

describe.each([
  ['PostgreSQL server', createServerDatabase],
  ['embedded PGlite', createEmbeddedDatabase],
] as const)('ingest on %s', (_, createDatabase) => {
  let test_db: TestDatabase;
  let deps: IngestDeps;
  let token: string;
  let hostId: number;

  beforeAll(async () => {
    test_db = await createDatabase();
    // These tests send many requests for one host; pacing is the 429 test's subject, with its own limits and clock.
    deps = createIngestDeps(test_db.db, { limits: unpacedLimits() });
    ({ token, hostId } = await enrolledHost(test_db.db));
  });
  afterAll(async () => {
    await deps.writer.close();
    await test_db.drop();
  });

  test('a gzip report is stored in every series table and moves the host forward', async () => {
    const before = await rowCounts(test_db.db);
    const r = report(1);
    const sentAtMs = Date.now();
    const out = await post(deps, token, r);
    expect(out).toMatchObject({ status: 200, body: { accepted: 1, duplicate: 0, acknowledgedSeqs: [1] } });
    const after = await rowCounts(test_db.db);
    expect(after.report_ledger - before.report_ledger).toBe(1);
    expect(after.host_samples - before.host_samples).toBe(1);
    expect(after.cpu_samples - before.cpu_samples).toBe(8);
    expect(after.disk_samples - before.disk_samples).toBe(4);
    expect(after.cgroup_samples - before.cgroup_samples).toBe(1);
    expect(after.process_samples - before.process_samples).toBe(2);
    expect(after.latency_samples - before.latency_samples).toBe(3);
    await writeHostProgress(deps);
    const [host] = await rowsOf<{ last_seq: number; last_report_ts: Date; last_seen_at: Date }>(test_db.db.sql,
      'SELECT last_seq, last_report_ts, last_seen_at FROM hosts WHERE id = $1', [hostId]);
    expect(Number(host!.last_seq)).toBe(1);
    expect(new Date(host!.last_seen_at).getTime()).toBeGreaterThanOrEqual(sentAtMs);
    expect(new Date(host!.last_seen_at).getTime()).toBeLessThanOrEqual(Date.now());
    expect(new Date(host!.last_report_ts).getTime()).toBe(r.ts);
    const [steal] = await rowsOf<{ cpu_steal_pct: number; keys: number[] }>(test_db.db.sql,
      `SELECT h.cpu_steal_pct, l.keys FROM host_samples h JOIN latency_samples l USING (host_id, ts)
        WHERE h.host_id = $1 AND l.name = 'inference.request'`, [hostId]);
    expect(steal!.cpu_steal_pct).toBeCloseTo(r.cpu && 'total' in r.cpu ? r.cpu.total.stealPct : -1, 2);
    expect(steal!.keys).toEqual(r.latency[0]!.sketch.keys);
  });

  test('per-CPU values are stored as one row of arrays and read back one row per CPU, in the report\'s order', async () => {
    const host = await enrolledHost(test_db.db);
    // Values a float4 holds exactly, every field different.
    const breakdown = (steal: number) => ({
      userPct: 40.5, nicePct: 1.5, systemPct: 9.25, iowaitPct: 0.125, irqPct: 0.25, softirqPct: 0.75, stealPct: steal, idlePct: 47.625 - steal,
    });
    const r = report(2, (x) => {
      if ('unavailable' in x.cpu) throw new Error('fixture');
      x.cpu.perCpu = [{ cpu: 5, ...breakdown(12.25) }, { cpu: 2, ...breakdown(0.5) }];
    });
    expect((await post(deps, host.token, r)).status).toBe(200);
    const arrays = await test_db.db.sql.query('SELECT cpu, steal_pct, idle_pct FROM cpu_sample_arrays WHERE host_id = $1', [host.hostId]);
    expect(arrays).toEqual([{ cpu: [5, 2], steal_pct: [12.25, 0.5], idle_pct: [35.375, 47.125] }]);
    const row = (cpu: number, steal: number) => ({
      cpu, user_pct: 40.5, nice_pct: 1.5, system_pct: 9.25, iowait_pct: 0.125, irq_pct: 0.25, softirq_pct: 0.75, steal_pct: steal, idle_pct: 47.625 - steal,
    });
    expect(await viewRows(test_db.db, 'cpu_samples', host.hostId)).toEqual([
      { host_id: host.hostId, ts: r.ts, ...row(5, 12.25) },
      { host_id: host.hostId, ts: r.ts, ...row(2, 0.5) },
    ]);
  });

  test('disks are stored as one row of arrays and read back one row per disk, in the report\'s order, every field', async () => {
    const host = await enrolledHost(test_db.db);
    const disk = (device: string, util: number) => ({
      device, readIops: 1.5, writeIops: 2.25, readBytesPerS: 123_456_789_012.5, writeBytesPerS: 3.5,
      readAwaitMs: 0.125, writeAwaitMs: 0.375, queueDepth: 4.5, inFlight: 7, utilPct: util,
    });
    const r = report(2, (x) => { x.disks = [disk('nvme1n1', 12.5), disk('sda «ü»\t"x"', 99.75)]; });
    expect((await post(deps, host.token, r)).status).toBe(200);
    const arrays = await test_db.db.sql.query('SELECT device, util_pct FROM disk_sample_arrays WHERE host_id = $1', [host.hostId]);
    expect(arrays).toEqual([{ device: ['nvme1n1', 'sda «ü»\t"x"'], util_pct: [12.5, 99.75] }]);
    const row = (device: string, util: number) => ({
      device, read_iops: 1.5, write_iops: 2.25, read_bytes_per_s: 123_456_789_012.5, write_bytes_per_s: 3.5,
      read_await_ms: 0.125, write_await_ms: 0.375, queue_depth: 4.5, in_flight: 7, util_pct: util,
    });
    expect(await viewRows(test_db.db, 'disk_samples', host.hostId)).toEqual([
      { host_id: host.hostId, ts: r.ts, ...row('nvme1n1', 12.5) },
      { host_id: host.hostId, ts: r.ts, ...row('sda «ü»\t"x"', 99.75) },
    ]);
  });

  test('a replayed report is acknowledged as duplicate and stored once', async () => {
    const r = report(2);
    expect((await post(deps, token, r)).body).toMatchObject({ accepted: 1, duplicate: 0 });
    const before = await rowCounts(test_db.db);
    const replay = await post(deps, token, { reports: [r, report(3)] });
    expect(replay).toMatchObject({ status: 200, body: { accepted: 1, duplicate: 1, acknowledgedSeqs: [2, 3] } });
    const after = await rowCounts(test_db.db);
    expect(after.report_ledger - before.report_ledger).toBe(1);
    expect(after.host_samples - before.host_samples).toBe(1);
  });

  test('a batch of 500 reports is stored whole', async () => {
    const before = await rowCounts(test_db.db);
    const reports = Array.from({ length: 500 }, (_, i) => report(1000 + i));
    const out = await post(deps, token, { reports });
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject({ accepted: 500, duplicate: 0 });
    const after = await rowCounts(test_db.db);
    expect(after.host_samples - before.host_samples).toBe(500);
    expect(after.cpu_samples - before.cpu_samples).toBe(4000);
  });

  test('an inventory snapshot is kept only when its hash changes', async () => {
    const inventory = (hash: string) => ({
      hash,
      host: { kernel: '6.1.0', memTotalBytes: 8e9, onlineCpus: 8 },
      cpu: { unavailable: 'test' },
      disks: [],
      dataPaths: [],
      cgroup: { unavailable: 'test' },
      processes: [],
    });
    const before = await rowCounts(test_db.db);
    await post(deps, token, { reports: [report(20, (r) => { r.inventory = inventory('a'); }), report(21, (r) => { r.inventory = inventory('a'); })] });
    await post(deps, token, report(22, (r) => { r.inventory = inventory('a'); }));
    // A minute after the last: changes closer together fold into one snapshot.
    await post(deps, token, report(23, (r) => { r.inventory = inventory('b'); r.ts = report(22).ts + 60_000; }));
    const after = await rowCounts(test_db.db);
    expect(after.inventory_snapshots - before.inventory_snapshots).toBe(2);
  });

  test('a watched process\'s container and pod are stored with the inventory and come back as sent; a process outside one has none', async () => {
    const container = {
      runtime: 'cri-o' as const,
      id: 'f33f47b0db740bb647cb3e7ac62d96c74966dbb99cbfaf4563bfd42d387e8b44',
      pod: { uid: '042efd86-1f3b-4f2f-8736-f31c58e95bbc', qosClass: 'burstable' as const },
    };
    const process = { name: 'serve.py', pid: 4242, comm: 'python3', threads: 8, cpusAllowedList: '0-3', cpusAllowedCount: 4, env: {}, cgroup: null, logWarnings: [] };
    const inventory = {
      hash: 'with-container',
      host: { kernel: '6.1.0', memTotalBytes: 8e9, onlineCpus: 8 },
      cpu: { unavailable: 'test' },
      disks: [],
      dataPaths: [],
      cgroup: { unavailable: 'test' },
      processes: [{ ...process, container }, { ...process, name: 'tokenizer', pid: 4343 }],
    };
    expect((await post(deps, token, report(30, (r) => { r.inventory = inventory; }))).status).toBe(200);
    const [row] = await rowsOf<{ data: unknown }>(test_db.db.sql, 'SELECT data FROM inventory_snapshots WHERE host_id = $1 AND hash = $2', [hostId, 'with-container']);
    const stored = (typeof row!.data === 'string' ? JSON.parse(row!.data) : row!.data) as typeof inventory;
    expect(stored.processes[0]).toEqual({ ...process, container });
    expect(stored.processes[1]).not.toHaveProperty('container');
  });

  const BOMB = gzipSync(Buffer.alloc(20 * 1024 * 1024, 32));
  const cases: { name: string; input: () => Partial<IngestInput> & { value?: unknown }; token?: () => string | null; status: number; code: string; message: RegExp; path?: string }[] = [
    { name: 'no token', input: () => ({ value: report(100) }), token: () => null, status: 401, code: 'unauthorized', message: /bearer token/ },
    { name: 'unknown token', input: () => ({ value: report(100) }), token: () => 'iwh_notarealtoken', status: 401, code: 'unknown_host_token', message: /unknown host token/ },
    { name: 'bad JSON', input: () => ({ body: gzipSync('{"v":1,'), contentEncoding: 'gzip' }), status: 400, code: 'invalid_json', message: /not valid JSON/ },
    { name: 'corrupt gzip', input: () => ({ body: Buffer.from('not gzip'), contentEncoding: 'gzip' }), status: 400, code: 'invalid_body', message: /not valid gzip/ },
    { name: 'brotli content-encoding', input: () => ({ value: report(100), contentEncoding: 'br' }), status: 415, code: 'unsupported_media_type', message: /content-encoding br/ },
    { name: 'text/plain content-type', input: () => ({ value: report(100), contentType: 'text/plain' }), status: 415, code: 'unsupported_media_type', message: /content-type text\/plain/ },
    { name: 'a string where a percentage belongs', input: () => ({ value: { reports: [report(100), report(101), report(102), report(103, (r) => { (r.cpu as { total: Record<string, unknown> }).total.stealPct = 'NaN'; })] } }), status: 400, code: 'invalid_payload', message: /reports\.3\.cpu\.total\.stealPct/, path: 'reports.3.cpu.total.stealPct' },
    { name: 'a percentage above 100', input: () => ({ value: report(100, (r) => { (r.cpu as { total: { iowaitPct: number } }).total.iowaitPct = 100.5; }) }), status: 400, code: 'invalid_payload', message: /cpu\.total\.iowaitPct/, path: 'cpu.total.iowaitPct' },
    { name: 'a huge number standing in for Infinity', input: () => ({ body: gzipSync(JSON.stringify(report(100)).replace('"load1":', '"load1":1e999,"x":')), contentEncoding: 'gzip' }), status: 400, code: 'invalid_payload', message: /load1/, path: 'cpu.load1' },
    { name: 'ts more than 5 minutes ahead', input: () => ({ value: report(100, (r) => { r.ts = Date.now() + 6 * 60_000; }) }), status: 400, code: 'invalid_payload', message: /in the future/, path: 'ts' },
    { name: 'ts older than raw retention', input: () => ({ value: report(100, (r) => { r.ts = Date.now() - 8 * 86_400_000; }) }), status: 400, code: 'invalid_payload', message: /older than raw retention/, path: 'ts' },
    { name: 'the same seq twice in one request', input: () => ({ value: { reports: [report(100), report(100, (r) => { r.ts += 5; })] } }), status: 400, code: 'invalid_payload', message: /seq 100 appears more than once/, path: 'reports.1.seq' },
    { name: 'a histogram bucket count beyond int4', input: () => ({ value: report(100, (r) => { const s = r.latency[1]!.sketch; s.count += 2 ** 31 - s.counts[0]!; s.counts[0] = 2 ** 31; }) }), status: 400, code: 'invalid_payload', message: /latency\.1\.sketch\.counts\.0/, path: 'latency.1.sketch.counts.0' },
    { name: 'the same disk twice in one report', input: () => ({ value: report(100, (r) => { if (Array.isArray(r.disks)) r.disks[1]!.device = r.disks[0]!.device; }) }), status: 400, code: 'invalid_payload', message: /duplicate device/, path: 'disks.1.device' },
    { name: 'a compressed body over 1 MB', input: () => ({ body: Buffer.alloc(1024 * 1024 + 1), contentEncoding: 'gzip' }), status: 413, code: 'payload_too_large', message: /exceeds 1048576 bytes/ },
    { name: 'a gzip bomb', input: () => ({ body: BOMB, contentEncoding: 'gzip' }), status: 413, code: 'payload_too_large', message: /decompressed body exceeds/ },
  ];

  test.each(cases)('rejects $name with $status $code and stores nothing', async (c) => {
    const before = await rowCounts(test_db.db);
    const { value, ...input } = c.input();
    const out = await ingestRequest(
      {
        authorization: `Bearer ${c.token ? c.token() : token}`,
        contentType: 'application/json',
        ...(value !== undefined ? jsonBody(value) : { body: Buffer.alloc(0), contentEncoding: null }),
        ...input,
        ...(c.token && c.token() === null ? { authorization: null } : {}),
      },
      deps,
    );
    expect(out.status).toBe(c.status);
    expect(errorOf(out.body).code).toBe(c.code);
    expect(errorOf(out.body).message).toMatch(c.message);
    if (c.path) expect(errorOf(out.body).details?.map((d) => d.path)).toContain(c.path);
    expect(await rowCounts(test_db.db)).toEqual(before);
  });

  test('rejects a revoked host token at once with 401 and stores nothing', async () => {
    const other = await enrolledHost(test_db.db);
    expect((await post(deps, other.token, report(1))).status).toBe(200);
    await revokeHostToken(test_db.db, other.hostId);
    const before = await rowCounts(test_db.db);
    const out = await post(deps, other.token, report(2));
    expect(out.status).toBe(401);
    expect(errorOf(out.body)).toMatchObject({ code: 'unauthorized', message: expect.stringContaining('was revoked by an administrator') });
    expect(await rowCounts(test_db.db)).toEqual(before);
  });

  test('answers 429 with Retry-After beyond the per-host request burst, and stores nothing from it', async () => {
    const limits = ingestLimits();
    // A stopped clock: the bucket cannot refill between requests, however slowly this machine sends them.
    const tight = createIngestDeps(test_db.db, { nowMs: () => NOW, limits: { ...limits, rate: { ...limits.rate, requestBurst: 2 } } });
    const other = await enrolledHost(test_db.db);
    expect((await post(tight, other.token, report(1))).status).toBe(200);
    expect((await post(tight, other.token, report(2))).status).toBe(200);
    const before = await rowCounts(test_db.db);
    const out = await post(tight, other.token, report(3));
    expect(out.status).toBe(429);
    expect(errorOf(out.body)).toMatchObject({ code: 'rate_limited', message: 'too many requests for this host' });
    expect(Number(out.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(await rowCounts(test_db.db)).toEqual(before);
    await tight.writer.close();
  });

  test('a report an hour old queues its (host, minute) for re-rolling, and rollUp then writes that minute; fresh ones queue nothing', async () => {
    const host = await enrolledHost(test_db.db);
    const nowMs = Date.now();
    const oldTs = nowMs - 3_600_000;
    const freshTs = nowMs - 5_000;
    const out = await post(deps, host.token, { reports: [realisticReport(1, oldTs), realisticReport(2, freshTs)] });
    expect(out).toMatchObject({ status: 200, body: { accepted: 2 } });
    const minute = (ms: number) => new Date(Math.floor(ms / 60_000) * 60_000);
    const dirty = await rowsOf<{ minute: Date }>(test_db.db.sql, 'SELECT minute FROM rollup_dirty_minutes WHERE host_id = $1', [host.hostId]);
    expect(dirty.map((d) => new Date(d.minute).getTime())).toEqual([minute(oldTs).getTime()]);
    await rollUp(test_db.db.sql, new Date());
    const rolled = await rowsOf<{ n: number }>(test_db.db.sql, 'SELECT count(*)::int AS n FROM host_samples_1m WHERE host_id = $1 AND ts = $2', [host.hostId, minute(oldTs)]);
    expect(rolled[0]!.n).toBe(1);
  });

  test('the agent\'s configured interval lands on its host; the newest report\'s wins and one without it leaves it', async () => {
    const host = await enrolledHost(test_db.db);
    const every = (seq: number, reportEveryMs?: number) => report(seq, (r) => { r.agent.reportEveryMs = reportEveryMs; });
    const reportEvery = async () =>
      (await rowsOf<{ report_every_ms: number | null }>(test_db.db.sql, 'SELECT report_every_ms FROM hosts WHERE id = $1', [host.hostId]))[0]!.report_every_ms;

    expect((await post(deps, host.token, every(1))).status).toBe(200);
    await writeHostProgress(deps);
    expect(await reportEvery()).toBeNull();
    expect((await post(deps, host.token, { reports: [every(2, 10_000), every(3, 30_000)] })).status).toBe(200);
    await writeHostProgress(deps);
    expect(await reportEvery()).toBe(30_000);
    expect((await post(deps, host.token, every(4))).status).toBe(200);
    await writeHostProgress(deps);
    expect(await reportEvery()).toBe(30_000);
  });

  test('the agent\'s version lands on its host from the newest report, and the fleet shows it', async () => {
    const host = await enrolledHost(test_db.db);
    const fleetVersion = async () => (await getFleetSummary(test_db.db)).hosts.find((h) => h.id === host.hostId)!.agentVersion;
    expect(await fleetVersion()).toBeNull();
    const withVersion = (seq: number, version: string) => report(seq, (r) => { r.agent.version = version; });
    expect((await post(deps, host.token, { reports: [withVersion(2, '0.2.0'), withVersion(1, '0.1.0')] })).status).toBe(200);
    await writeHostProgress(deps);
    expect(await fleetVersion()).toBe('0.2.0');
    expect((await post(deps, host.token, withVersion(3, '0.3.0'))).status).toBe(200);
    await writeHostProgress(deps);
    expect(await fleetVersion()).toBe('0.3.0');
  });

  test('a host token writes only its own host, whatever the report says', async () => {
    const a = await enrolledHost(test_db.db);
    const b = await enrolledHost(test_db.db);
    await post(deps, b.token, report(7, (r) => { r.host.hostname = 'pretending-to-be-a'; }));
    const rows = await rowsOf<{ host_id: number }>(test_db.db.sql, 'SELECT host_id FROM report_ledger WHERE host_id = ANY($1::int4[])', [[a.hostId, b.hostId]]);
    expect(rows.map((r) => r.host_id)).toEqual([b.hostId]);
  });
});

describe('ingest on a PostgreSQL server under concurrency and failure', () => {
  let test_db: TestDatabase;
  let deps: IngestDeps;
  beforeAll(async () => {
    test_db = await createServerDatabase();
    deps = createIngestDeps(test_db.db, { limits: unpacedLimits() });
  });
  afterAll(async () => {
    await deps.writer.close();
    await test_db.drop();
  });

  test('concurrent requests from 40 hosts, with replays mixed in, are each stored exactly once', async () => {
    const hosts = await Promise.all(Array.from({ length: 40 }, () => enrolledHost(test_db.db)));
    const requests = hosts.flatMap((h) => Array.from({ length: 8 }, (_, i) => ({ h, seq: i })));
    const outs = await Promise.all([...requests, ...requests.slice(0, 60)].map(({ h, seq }) => post(deps, h.token, report(seq))));
    expect(outs.every((o) => o.status === 200)).toBe(true);
    const accepted = outs.reduce((n, o) => n + (o.body as { accepted: number }).accepted, 0);
    const duplicate = outs.reduce((n, o) => n + (o.body as { duplicate: number }).duplicate, 0);
    expect(accepted).toBe(320);
    expect(duplicate).toBe(60);
    const counts = await rowCounts(test_db.db);
    expect(counts.report_ledger).toBe(320);
    expect(counts.host_samples).toBe(320);
    expect(counts.cpu_samples).toBe(320 * 8);
    await writeHostProgress(deps);
    const lastSeqs = await rowsOf<{ last_seq: number }>(test_db.db.sql, 'SELECT last_seq FROM hosts WHERE id = ANY($1::int4[])', [hosts.map((h) => h.hostId)]);
    expect(lastSeqs.every((h) => Number(h.last_seq) === 7)).toBe(true);
  });

  interface HostRow {
    last_seq: string | null;
    last_report_ts: Date | null;
    last_seen_at: Date | null;
  }
  const hostRow = async (hostId: number) =>
    (await rowsOf<HostRow>(test_db.db.sql, 'SELECT last_seq, last_report_ts, last_seen_at FROM hosts WHERE id = $1', [hostId]))[0]!;
  // A writer whose timer will not write host progress during the test: only writeHostProgress() and close() do.
  const writerWithoutTimer = () => new GroupCommitWriter(test_db.db.pool!, { hostProgressIntervalMs: 3_600_000 });

  test('host progress stays in memory after a stored report until writeHostProgress writes max seq, newest ts and last seen', async () => {
    const host = await enrolledHost(test_db.db);
    const writer = writerWithoutTimer();
    const slow = createIngestDeps(test_db.db, { writer });
    try {
      const startedMs = Date.now();
      const newest = report(5, (r) => { r.ts = NOW - 1_000; });
      // The newest ts first, the highest seq in the middle of a later request: the newest of each must win.
      expect((await post(slow, host.token, newest)).status).toBe(200);
      expect((await post(slow, host.token, { reports: [report(4), report(9), report(3)] })).status).toBe(200);
      expect(await hostRow(host.hostId)).toEqual({ last_seq: null, last_report_ts: null, last_seen_at: null });

      await writer.writeHostProgress();
      const row = await hostRow(host.hostId);
      expect(Number(row.last_seq)).toBe(9);
      expect(row.last_report_ts!.getTime()).toBe(newest.ts);
      expect(row.last_seen_at!.getTime()).toBeGreaterThanOrEqual(startedMs);
      expect(row.last_seen_at!.getTime()).toBeLessThanOrEqual(Date.now());
    } finally {
      await writer.close();
    }
  });

  test('a configured interval new to the writer is written at once, not on the timer, with the rest of the progress', async () => {
    const host = await enrolledHost(test_db.db);
    const writer = writerWithoutTimer();
    const deps = createIngestDeps(test_db.db, { writer });
    try {
      const first = report(1, (r) => { r.intervalMs = 260; r.agent.reportEveryMs = 10_000; });
      expect((await post(deps, host.token, first)).status).toBe(200);
      const hostNow = async () =>
        (await rowsOf<{ report_every_ms: number | null; last_seq: string | null }>(test_db.db.sql,
          'SELECT report_every_ms, last_seq FROM hosts WHERE id = $1', [host.hostId]))[0]!;
      const deadline = Date.now() + 10_000;
      while ((await hostNow()).report_every_ms === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const row = await hostNow();
      expect([row.report_every_ms, Number(row.last_seq)]).toEqual([10_000, 1]);
    } finally {
      await writer.close();
    }
  });

  test('host progress updates stay on their page (heap-only), because hosts pages are written half full', async () => {
    // Enough hosts for several pages: with full pages (fillfactor 100) most updated rows would move to another page.
    const hosts = await Promise.all(Array.from({ length: 150 }, () => enrolledHost(test_db.db)));
    const blockOf = async () => new Map(
      (await rowsOf<{ id: number; block: string }>(test_db.db.sql,
        `SELECT id, (ctid::text::point)[0]::int8::text AS block FROM hosts WHERE id = ANY($1::int4[])`,
        [hosts.map((h) => h.hostId)],
      )).map((row) => [row.id, row.block]),
    );
    const before = await blockOf();
    expect(new Set(before.values()).size).toBeGreaterThan(2);
    const writer = writerWithoutTimer();
    const deps = createIngestDeps(test_db.db, { writer });
    try {
      for (const host of hosts) expect((await post(deps, host.token, report(1))).status).toBe(200);
      await writer.writeHostProgress();
    } finally {
      await writer.close();
    }
    const after = await blockOf();
    // Measured here: 4 of the 150 rows moved with half-full pages, 58 with full pages (fillfactor 100).
    const moved = hosts.filter((h) => after.get(h.hostId) !== before.get(h.hostId));
    expect(moved.length).toBeLessThan(hosts.length / 10);
    const progressed = await rowsOf<{ n: string }>(test_db.db.sql,
      'SELECT count(*) AS n FROM hosts WHERE id = ANY($1::int4[]) AND last_seq = 1',
      [hosts.map((h) => h.hostId)],
    );
    expect(Number(progressed[0]!.n)).toBe(hosts.length);
  });

  test('close() writes the host progress still in memory', async () => {
    const host = await enrolledHost(test_db.db);
    const writer = writerWithoutTimer();
    const closing = createIngestDeps(test_db.db, { writer });
    const sentAtMs = Date.now();
    expect((await post(closing, host.token, { reports: [report(1), report(2)] })).status).toBe(200);
    expect((await hostRow(host.hostId)).last_seq).toBeNull();

    await writer.close();
    const row = await hostRow(host.hostId);
    expect(Number(row.last_seq)).toBe(2);
    expect(row.last_report_ts!.getTime()).toBe(report(2).ts);
    expect(row.last_seen_at!.getTime()).toBeGreaterThanOrEqual(sentAtMs);
    expect(row.last_seen_at!.getTime()).toBeLessThanOrEqual(Date.now());
  });

  test('host progress is written a chunk of hosts per UPDATE, and every host gets its row', async () => {
    const hosts = await Promise.all(Array.from({ length: 5 }, () => enrolledHost(test_db.db)));
    const writer = new GroupCommitWriter(test_db.db.pool!, { hostProgressIntervalMs: 3_600_000, hostProgressChunk: 2 });
    const deps = createIngestDeps(test_db.db, { writer });
    const updates = countHostUpdates(test_db.db.pool!);
    try {
      for (const [i, host] of hosts.entries()) expect((await post(deps, host.token, report(10 + i))).status).toBe(200);
      await writer.writeHostProgress();
      expect(updates.count).toBe(3);
      for (const [i, host] of hosts.entries()) {
        const row = await hostRow(host.hostId);
        expect(Number(row.last_seq)).toBe(10 + i);
        expect(row.last_report_ts!.getTime()).toBe(report(10 + i).ts);
      }
    } finally {
      updates.restore();
      await writer.close();
    }
  });

  test('a host progress chunk that fails keeps its hosts and the ones after it for the next write', async () => {
    const hosts = await Promise.all(Array.from({ length: 6 }, () => enrolledHost(test_db.db)));
    hosts.sort((a, b) => a.hostId - b.hostId);
    const writer = new GroupCommitWriter(test_db.db.pool!, { hostProgressIntervalMs: 3_600_000, hostProgressChunk: 2, queryTimeoutMs: 300 });
    const deps = createIngestDeps(test_db.db, { writer });
    const locker = new pg.Client(test_db.url);
    await locker.connect();
    try {
      for (const host of hosts) expect((await post(deps, host.token, report(7))).status).toBe(200);
      // The second chunk (hosts 3 and 4 in id order) waits for a row lock past the query timeout.
      await locker.query('BEGIN');
      await locker.query('SELECT id FROM hosts WHERE id = $1 FOR UPDATE', [hosts[2]!.hostId]);
      await writer.writeHostProgress();
      expect(Number((await hostRow(hosts[0]!.hostId)).last_seq)).toBe(7);
      expect((await hostRow(hosts[4]!.hostId)).last_seq).toBeNull();
      await locker.query('ROLLBACK');

      await writer.writeHostProgress();
      for (const host of hosts) expect(Number((await hostRow(host.hostId)).last_seq)).toBe(7);
    } finally {
      await locker.end();
      await writer.close();
    }
  });

  test('every column type survives the binary COPY exactly (text, NULL, bool, int8, float8, float4, arrays, timestamptz)', async () => {
    const host = await enrolledHost(test_db.db);
    const r = report(3, (x) => {
      if ('unavailable' in x.disks || 'unavailable' in x.cgroups) throw new Error('fixture');
      x.disks[0]!.device = 'nvme0n1 «ünïcode»\ttab';
      x.disks[0]!.readBytesPerS = 123_456_789_012.5;
      x.cgroups[0]!.quotaCores = null;
      x.latency[0]!.sketch = { count: 2_147_483_650, sum: 1.5, min: -2, max: 9, zeroCount: 1, keys: [-300, 0, 32_000], counts: [1, 1, 2_147_483_647] };
      x.probes = [{ name: 'rtt', target: 'db:5432', ok: false, connectMs: null, responseMs: 12.25, error: 'refused\nagain' }];
      x.processes[0]!.pid = 2_000_000_000;
    });
    expect((await post(deps, host.token, r)).status).toBe(200);
    const q = async (sql: string) => (await rowsOf<Record<string, unknown>>(test_db.db.sql, sql, [host.hostId]))[0]!;
    const disk = await q("SELECT device, read_bytes_per_s, util_pct, ts FROM disk_samples WHERE host_id = $1 AND device LIKE 'nvme0n1 %'");
    expect(disk).toMatchObject({ device: 'nvme0n1 «ünïcode»\ttab', read_bytes_per_s: 123_456_789_012.5 });
    expect(new Date(disk.ts as Date).getTime()).toBe(r.ts);
    expect(disk.util_pct).toBeCloseTo('unavailable' in r.disks ? 0 : r.disks[0]!.utilPct, 4);
    expect(await q('SELECT quota_cores FROM cgroup_samples WHERE host_id = $1')).toEqual({ quota_cores: null });
    expect(await q("SELECT count::float8 AS count, sum, min, max, zero_count::float8 AS zero_count, keys, counts FROM latency_samples WHERE host_id = $1 AND name = 'inference.request'"))
      .toEqual({ count: 2_147_483_650, sum: 1.5, min: -2, max: 9, zero_count: 1, keys: [-300, 0, 32_000], counts: [1, 1, 2_147_483_647] });
    expect(await q('SELECT ok, connect_ms, response_ms, error FROM probe_samples WHERE host_id = $1'))
      .toEqual({ ok: false, connect_ms: null, response_ms: 12.25, error: 'refused\nagain' });
    expect(await q("SELECT pid FROM process_samples WHERE host_id = $1 AND name = 'triton'")).toEqual({ pid: 2_000_000_000 });
    expect(await q('SELECT seq, ts FROM report_ledger WHERE host_id = $1')).toEqual({ seq: 3, ts: new Date(r.ts) });
  });

  test('a bad value in one request of a flush fails only that request', async () => {
    const [good, bad] = [await enrolledHost(test_db.db), await enrolledHost(test_db.db)];
    expect((await post(deps, bad.token, report(1))).status).toBe(200);
    const before = await rowCounts(test_db.db);
    // Same ts as the stored seq 1 under a new seq: only the database can see this conflict.
    const [ok, conflict] = await Promise.all([
      post(deps, good.token, report(1)),
      post(deps, bad.token, report(2, (r) => { r.ts = report(1).ts; })),
    ]);
    expect(ok.status).toBe(200);
    expect(conflict.status).toBe(409);
    expect(errorOf(conflict.body).code).toBe('conflict');
    expect((await rowCounts(test_db.db)).report_ledger - before.report_ledger).toBe(1);
  });

  test('a report its columns cannot hold fails only its own write, before it is queued, and stores nothing of it', async () => {
    const [first, good, bad] = [await enrolledHost(test_db.db), await enrolledHost(test_db.db), await enrolledHost(test_db.db)];
    const writer = writerWithoutTimer();
    const before = await rowCounts(test_db.db);
    // Validation refuses this before a writer sees it; the writer must still not let it touch its neighbours.
    const unstorable = report(1, (r) => { r.agent.droppedReports = 2 ** 31; });
    // The first write's flush is in flight, so the next two would share one flush if both were queued.
    const [, stored, refused] = await Promise.allSettled([
      writer.write({ hostId: first.hostId, reports: [report(1)] }),
      writer.write({ hostId: good.hostId, reports: [report(1)] }),
      writer.write({ hostId: bad.hostId, reports: [report(2), unstorable] }),
    ]);
    expect(stored).toEqual({ status: 'fulfilled', value: { acceptedSeqs: [1], duplicateSeqs: [] } });
    expect(refused.status).toBe('rejected');
    expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(RangeError);
    await writer.close();
    const after = await rowCounts(test_db.db);
    expect(after.report_ledger - before.report_ledger).toBe(2);
    expect(after.host_samples - before.host_samples).toBe(2);
  });

  test('onFlush is told of every flush: its requests and reports, its wait in the queue, its time, and that it committed', async () => {
    const hosts = await Promise.all(Array.from({ length: 3 }, () => enrolledHost(test_db.db)));
    const flushes: FlushOutcome[] = [];
    const writer = new GroupCommitWriter(test_db.db.pool!, { hostProgressIntervalMs: 3_600_000, onFlush: (f) => flushes.push(f) });
    await Promise.all(hosts.map((h, i) => writer.write({ hostId: h.hostId, reports: Array.from({ length: i + 1 }, (_, k) => report(k + 1)) })));
    await writer.close();
    expect(flushes.reduce((n, f) => n + f.requests, 0)).toBe(3);
    expect(flushes.reduce((n, f) => n + f.reports, 0)).toBe(6);
    for (const flush of flushes) {
      expect(flush.ok).toBe(true);
      expect(flush.flushMs).toBeGreaterThan(0);
      expect(flush.queuedMs).toBeGreaterThanOrEqual(0);
    }
  });

  test('a flush blocked past the query timeout (a hung database) answers 503 from the timeout, cancels its statement, and stores nothing', async () => {
    const host = await enrolledHost(test_db.db);
    const flushes: FlushOutcome[] = [];
    const hung = createIngestDeps(test_db.db, { writer: new GroupCommitWriter(test_db.db.pool!, { queryTimeoutMs: 300, onFlush: (f) => flushes.push(f) }) });
    const locker = new pg.Client(test_db.url);
    await locker.connect();
    const before = await rowCounts(test_db.db);
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE report_ledger IN ACCESS EXCLUSIVE MODE');
      const out = await post(hung, host.token, report(1));
      expect(out.status).toBe(503);
      expect(errorOf(out.body).code).toBe('database_unavailable');
      expect(flushes).toEqual([expect.objectContaining({ requests: 1, reports: 1, ok: false })]);
      expect(flushes[0]!.flushMs).toBeGreaterThanOrEqual(300);
      // The answer came while the lock was still held: from the timeout, not from the lock's release.
      const held = await locker.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks
          WHERE pid = pg_backend_pid() AND relation = 'report_ledger'::regclass AND mode = 'AccessExclusiveLock' AND granted`);
      expect(held.rows[0]!.n).toBe(1);
      // Nor is the timed-out statement left queued behind the lock: the server cancelled it too.
      const waitingOnLock = async () => (await locker.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`)).rows[0]!.n;
      await expect.poll(waitingOnLock, { timeout: 30_000, interval: 100 }).toBe(0);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    expect(await rowCounts(test_db.db)).toEqual(before);
    await hung.writer.close();
  });

  test('answers 503 with Retry-After after one failed connection, without retrying, while the database is unreachable, and stores nothing', async () => {
    const host = await enrolledHost(test_db.db);
    const deadPool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 1_000 });
    // Every query and flush takes a connection through connect(); each call is one attempt to reach the server.
    let connections = 0;
    const connect = deadPool.connect.bind(deadPool) as (...args: unknown[]) => unknown;
    deadPool.connect = ((...args: unknown[]) => {
      connections++;
      return connect(...args);
    }) as pg.Pool['connect'];
    deadPool.on('error', () => {});
    const flushes: FlushOutcome[] = [];
    const deadWriter = createIngestDeps(test_db.db, { writer: new GroupCommitWriter(deadPool, { onFlush: (f) => flushes.push(f) }) });
    const deadAuth = createIngestDeps(test_db.db, { authenticate: async () => { await poolSql(deadPool).query('SELECT 1'); throw new Error('unreachable'); } });
    const before = await rowCounts(test_db.db);
    for (const d of [deadWriter, deadAuth]) {
      connections = 0;
      const out = await post(d, host.token, report(1));
      expect(out.status).toBe(503);
      expect(errorOf(out.body)).toMatchObject({ code: 'database_unavailable', message: 'the database is unavailable; retry later' });
      expect(Number(out.headers['Retry-After'])).toBeGreaterThan(0);
      expect(connections).toBe(1);
    }
    expect(flushes).toEqual([expect.objectContaining({ requests: 1, reports: 1, ok: false })]);
    expect(await rowCounts(test_db.db)).toEqual(before);
    await deadPool.end();
  });
});
