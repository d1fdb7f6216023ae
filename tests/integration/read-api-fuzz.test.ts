import fc from 'fast-check';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { realisticReport } from '../../bench/_ingest-report';
import { createEnrollmentKey } from '../../lib/auth/enrollment-keys';
import { enrollHost } from '../../lib/auth/enroll-host';
import { closeDb, getDb } from '../../lib/db';
import { rollUp } from '../../lib/series/rollup';
import { MAX_MEASUREMENT, type CgroupSample, type DiskSample, type Report } from '../../lib/protocol';
import { cleanInventory } from '../support/findings-facts';
import { ingestClient, reportSeries } from '../support/ingest-client';
import { readQueryArb, type RouteKeys } from '../support/read-query-arbitraries';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { SPARKLINE_METRICS } from '../../lib/protocol/read-api/fleet';
import { SERIES_METRICS } from '../../lib/protocol/read-api/series-metrics';
import { OPERATIONS } from '../../lib/openapi/operations';
import { errorEnvelopeSchema } from '../../lib/protocol/errors';
import { expectMatches } from '../support/expect-matches';

// Random query strings against every read route's handler over a small real fleet: 200 with the body its OpenAPI
// schema describes, 400 or (a host or finding that does not exist) 404 with the error envelope; never a 5xx.
const QUERIES = 1_500;

type Handler = (request: Request, context: { params: Promise<{ id: string }> }) => Promise<Response>;
interface Route extends RouteKeys {
  path: string;
  load: () => Promise<{ GET: Handler }>;
}

const RANGE = ['from', 'to'];
const ROUTES: Route[] = [
  { path: '/api/v1/fleet', keys: ['region', 'regions', 'status', 'finding', 'label', 'q', 'latency', 'sort', 'dir', 'page', 'limit'], load: () => import('../../app/api/v1/fleet/route') },
  { path: '/api/v1/fleet/sparklines', keys: ['ids', 'metric', 'latency'], required: ['ids', 'metric'], good: { metric: fc.constantFrom(...SPARKLINE_METRICS) }, load: () => import('../../app/api/v1/fleet/sparklines/route') },
  { path: '/api/v1/compare', keys: ['metric', 'latency', 'region', 'labels', 'hosts', 'key', 'rank', 'limit', 'maxPoints', ...RANGE], required: ['metric', 'latency'], load: () => import('../../app/api/v1/compare/route') },
  { path: '/api/v1/compare/choices', keys: ['q', 'limit'], load: () => import('../../app/api/v1/compare/choices/route') },
  { path: '/api/v1/latency', keys: ['name', 'host', 'region', 'labels', 'points', ...RANGE], required: ['name'], load: () => import('../../app/api/v1/latency/route') },
  { path: '/api/v1/regions/compare', keys: RANGE, load: () => import('../../app/api/v1/regions/compare/route') },
  { path: '/api/v1/hosts/:id', keys: [], load: () => import('../../app/api/v1/hosts/[id]/route') },
  { path: '/api/v1/hosts/:id/series', keys: ['metric', 'maxPoints', ...RANGE], required: ['metric'], good: { metric: fc.constantFrom(...SERIES_METRICS) }, load: () => import('../../app/api/v1/hosts/[id]/series/route') },
  { path: '/api/v1/hosts/:id/latency-series', keys: RANGE, load: () => import('../../app/api/v1/hosts/[id]/latency-series/route') },
  { path: '/api/v1/hosts/:id/annotations', keys: RANGE, load: () => import('../../app/api/v1/hosts/[id]/annotations/route') },
  { path: '/api/v1/hosts/:id/inventory', keys: ['limit', ...RANGE], load: () => import('../../app/api/v1/hosts/[id]/inventory/route') },
  { path: '/api/v1/hosts/:id/findings', keys: ['region', 'labels', 'rule', 'severity', 'state', 'limit', ...RANGE], load: () => import('../../app/api/v1/hosts/[id]/findings/route') },
  { path: '/api/v1/hosts/:id/latency-explained', keys: ['name', ...RANGE], required: ['name'], load: () => import('../../app/api/v1/hosts/[id]/latency-explained/route') },
  { path: '/api/v1/findings', keys: ['host', 'region', 'labels', 'rule', 'severity', 'state', 'limit', ...RANGE], load: () => import('../../app/api/v1/findings/route') },
  { path: '/api/v1/findings/summary', keys: ['host', 'region', 'labels', 'severity', 'state', ...RANGE], load: () => import('../../app/api/v1/findings/summary/route') },
  { path: '/api/v1/findings/fixed', keys: ['region', 'labels', 'limit', ...RANGE], load: () => import('../../app/api/v1/findings/fixed/route') },
  { path: '/api/v1/alerts', keys: ['state', 'rule', 'host', 'region', 'severity', 'limit', ...RANGE], load: () => import('../../app/api/v1/alerts/route') },
  { path: '/api/v1/alerts/deliveries', keys: ['channel', 'alert', 'status', 'limit'], load: () => import('../../app/api/v1/alerts/deliveries/route') },
  { path: '/api/v1/alerts/silences', keys: ['state'], load: () => import('../../app/api/v1/alerts/silences/route') },
];

/** A report at the extremes ingest accepts: every measurement and histogram sum at MAX_MEASUREMENT. */
function extremeReport(report: Report, i: number): Report {
  const big = MAX_MEASUREMENT;
  report.disks = (report.disks as DiskSample[]).map((d) => ({ ...d, readBytesPerS: big, writeIops: big, queueDepth: big }));
  report.cgroups = (report.cgroups as CgroupSample[]).map((g) => ({ ...g, quotaCores: big, usageCores: big, throttledMsPerS: big }));
  report.processes = report.processes.map((p) => ({ ...p, cpuCores: big, rssBytes: big }));
  report.latency = report.latency.map((l) => ({ ...l, sketch: { ...l.sketch, sum: big, max: big } }));
  report.probes = [{ name: 'edge', target: 'https://x', ok: true, connectMs: big, responseMs: big, error: null }];
  report.servers = [{ name: 'vllm', ok: true, error: null, requestsPerS: big, latencyMeanMs: big, queueMeanMs: big, waiting: big, running: big, batchSize: big, droppedSeries: 2 ** 31 - 1 }];
  report.agent.spoolBytes = big;
  if (i === 0) report.inventory = cleanInventory({ hash: 'edge', host: { kernel: null, memTotalBytes: big, onlineCpus: 1 } });
  return report;
}

let testDb: TestDatabase;
const hostIds: number[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase();
  process.env.DATABASE_URL = testDb.url;
  const db = await getDb();
  const client = ingestClient(db);
  for (const [region, labels] of [['oslo', { model: 'llama', team: 'ml' }], ['oslo', {}], ['frankfurt', { model: 'llama' }]] as const) {
    const key = await createEnrollmentKey(db, { name: region, region, labels });
    const host = await enrollHost(db, key.key, { hostname: `${region}-${hostIds.length}`, machineId: null });
    hostIds.push(host.hostId);
    const reports = reportSeries(60, Date.now() - 1_000, 10_000, (i, ts) => realisticReport(i, ts, hostIds.length * 100 + i));
    reports[0]!.inventory = cleanInventory({ hash: `inv-${host.hostId}` });
    await client.send(host.token, reports);
  }
  // A host whose agent sent the largest values ingest accepts.
  const key = await createEnrollmentKey(db, { name: 'edge', region: 'frankfurt', labels: { model: 'llama' } });
  const edge = await enrollHost(db, key.key, { hostname: 'edge', machineId: null });
  hostIds.push(edge.hostId);
  await client.send(edge.token, reportSeries(30, Date.now() - 1_000, 10_000, (i, ts) => extremeReport(realisticReport(i, ts), i)));
  await client.settle();
  await client.close();
  await db.sql.query(
    `INSERT INTO findings (rule_id, host_id, region, severity, state, message, remedy, evidence, first_seen_at, opened_at, last_evaluated_at)
     VALUES ('cpu.avx512-hidden', $1, 'oslo', 'critical', 'open', 'AVX-512 hidden.', 'Pass it through.', '{"values":[]}', now(), now(), now())`,
    [hostIds[0]],
  );
  await rollUp(db.sql, new Date());
});

afterAll(async () => {
  await closeDb();
  await testDb?.drop();
});

/** The schema OPERATIONS gives the route's 200 answer. */
function okSchemaOf(path: string) {
  const operation = OPERATIONS.find((op) => op.method === 'get' && op.path === path.replace(':id', '{id}'));
  if (!operation?.ok.schema) throw new Error(`no response schema for GET ${path} in lib/openapi/operations.ts`);
  return operation.ok.schema;
}

test(`${QUERIES} random query strings over every read route: 200 as its schema says, 400 or 404 with the envelope, never a 5xx`, async () => {
  const unhandled = vi.spyOn(console, 'error').mockImplementation(() => {});
  const handlers = await Promise.all(ROUTES.map((route) => route.load()));
  const schemas = ROUTES.map((route) => okSchemaOf(route.path));
  const queryArb = fc.nat(ROUTES.length - 1).chain((i) => readQueryArb(ROUTES[i]!, hostIds).map((query) => ({ route: i, ...query })));
  try {
    await fc.assert(
      fc.asyncProperty(queryArb, async ({ route, search, id }) => {
        unhandled.mockClear();
        const { path } = ROUTES[route]!;
        const url = `http://localhost${path.replace(':id', encodeURIComponent(id))}?${search}`;
        const response = await handlers[route]!.GET(new Request(url), { params: Promise.resolve({ id }) });
        const body = (await response.json()) as unknown;
        expect([200, 400, ...(path.includes(':id') ? [404] : [])], JSON.stringify(body)).toContain(response.status);
        if (response.status === 200) expectMatches(schemas[route]!, body, `GET ${url}`);
        else expectMatches(errorEnvelopeSchema, body, `GET ${url}`);
        expect(unhandled.mock.calls).toEqual([]);
      }),
      { numRuns: QUERIES },
    );
  } finally {
    unhandled.mockRestore();
  }
}, 300_000);
