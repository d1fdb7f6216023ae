import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { realisticReport } from '../../bench/_ingest-report';
import { DEFAULT_ALERT_RULES } from '../../lib/alerts/default-rules';
import { AlertEngine } from '../../lib/alerts/engine';
import { ensureDefaultRules } from '../../lib/alerts/store/rules';
import { createEnrollmentKey } from '../../lib/auth/enrollment-keys';
import { enrollHost } from '../../lib/auth/enroll-host';
import { closeDb, getDb } from '../../lib/db';
import { FindingsEngine } from '../../lib/findings/engine/engine';
import { CLIENT_ADDRESS_HEADER } from '../../lib/http/client-address';
import { OPERATIONS, type Operation } from '../../lib/openapi/operations';
import { rollUp } from '../../lib/series/rollup';
import { expectMatches } from '../support/expect-matches';
import { cleanInventory, loaded, watchedProcess } from '../support/findings-facts';
import { ingestClient, reportSeries } from '../support/ingest-client';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { SECRET_KEY } from './alerts-helpers';
import { rowsOf } from '../support/rows';

// Every operation that answers JSON, called through its real route handler over a small fleet with findings, alerts,
// users and keys, and its answer checked against the schema OPERATIONS gives it (the one the OpenAPI document shows).

const ADMIN = 'response-schemas-admin-token';
const ORIGIN = 'http://iw.example:3000';
const PASSWORD = 'a long enough passphrase';

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

interface Call {
  /** The operation, as OPERATIONS names it. */
  key: string;
  /** The URL path and query, with the path's ids filled in. */
  url: () => string;
  body?: () => unknown;
  /** Who calls: the bootstrap admin token (the default), a signed-in user's session, or the agent with its key or token. */
  as?: 'admin' | 'session' | 'agent';
}

let testDb: TestDatabase;
const ids = { host: 0, otherHost: 0, finding: 0, alert: 0, user: 0, token: 0, channel: 0, silence: 0, key: 0 };
let session = '';
const agent = { enrollmentKey: '', hostToken: '' };

/** The route file of an operation: `/api/v1/hosts/{id}` is app/api/v1/hosts/[id]/route.ts. */
function handlerOf(op: Operation): Promise<Handler> {
  const file = path.join(process.cwd(), 'app', ...op.path.replace(/\{(\w+)\}/g, '[$1]').split('/'), 'route.ts');
  return import(file).then((module: Record<string, Handler>) => module[op.method.toUpperCase()]!);
}

function operation(key: string): Operation {
  const op = OPERATIONS.find((o) => `${o.method} ${o.path}` === key);
  if (!op) throw new Error(`no operation ${key} in lib/openapi/operations.ts`);
  return op;
}

/** The path's `{id}` or `{topic}`, as the handler's params receive it. */
function paramsOf(op: Operation, url: string): Record<string, string> {
  const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  if (names.length === 0) return {};
  const pattern = new RegExp(`^${op.path.replace(/\{\w+\}/g, '([^/?]+)')}(?:\\?|$)`);
  const values = pattern.exec(url)!.slice(1);
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(values[i]!)]));
}

async function call(c: Call): Promise<{ op: Operation; status: number; body: unknown }> {
  const op = operation(c.key);
  const url = c.url();
  const headers: Record<string, string> = { host: 'iw.example:3000', origin: ORIGIN, [CLIENT_ADDRESS_HEADER]: '192.0.2.7' };
  const as = c.as ?? 'admin';
  if (as === 'admin') headers.authorization = `Bearer ${ADMIN}`;
  else if (as === 'session') headers.cookie = session;
  else headers.authorization = `Bearer ${agent.hostToken || agent.enrollmentKey}`;
  const body = c.body?.();
  if (body !== undefined) headers['content-type'] = 'application/json';
  const request = new Request(`${ORIGIN}${url}`, { method: op.method.toUpperCase(), headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const response = await (await handlerOf(op))(request, { params: Promise.resolve(paramsOf(op, url)) });
  return { op, status: response.status, body: response.status === 204 ? null : ((await response.json()) as unknown) };
}

/** Writes first, in the order they build on each other; they leave ids for the reads. */
const WRITES: (Call & { keep?: (body: Record<string, unknown>) => void })[] = [
  {
    key: 'post /api/v1/admin/users',
    url: () => '/api/v1/admin/users',
    body: () => ({ email: 'pat@example.com', name: 'Pat', role: 'editor', password: PASSWORD }),
    keep: (b) => (ids.user = b.id as number),
  },
  { key: 'post /api/v1/admin/users', url: () => '/api/v1/admin/users', body: () => ({ email: 'gen@example.com', role: 'viewer', generatePassword: true }) },
  { key: 'patch /api/v1/admin/users/{id}', url: () => `/api/v1/admin/users/${ids.user}`, body: () => ({ name: 'Pat Doe' }) },
  { key: 'post /api/v1/auth/tokens', url: () => '/api/v1/auth/tokens', as: 'session', body: () => ({ name: 'ci', expiresInDays: 30 }), keep: (b) => (ids.token = b.id as number) },
  {
    key: 'post /api/v1/admin/enrollment-keys',
    url: () => '/api/v1/admin/enrollment-keys',
    body: () => ({ name: 'spare', region: 'oslo', labels: { team: 'ml' }, maxHosts: 5 }),
    keep: (b) => {
      ids.key = b.id as number;
      agent.enrollmentKey = b.key as string;
    },
  },
  { key: 'post /api/v1/enroll', url: () => '/api/v1/enroll', as: 'agent', body: () => ({ hostname: 'spare-1', machineId: null }), keep: (b) => (agent.hostToken = b.token as string) },
  { key: 'post /api/v1/ingest', url: () => '/api/v1/ingest', as: 'agent', body: () => realisticReport(1, Date.now() - 1_000, 7) },
  { key: 'post /api/v1/admin/hosts/{id}/reenroll-approval', url: () => `/api/v1/admin/hosts/${ids.otherHost}/reenroll-approval` },
  { key: 'put /api/v1/findings/thresholds', url: () => '/api/v1/findings/thresholds', body: () => ({ scope: 'region', region: 'oslo', ruleId: 'cpu.steal-high', thresholds: { warningPct: 5 } }) },
  { key: 'put /api/v1/findings/residency-policies', url: () => '/api/v1/findings/residency-policies', body: () => ({ name: 'eu', selector: { team: 'ml' }, allowedRegions: ['oslo', 'frankfurt'] }) },
  { key: 'put /api/v1/findings/{id}/acknowledgement', url: () => `/api/v1/findings/${ids.finding}/acknowledgement`, body: () => ({ reason: 'known', expiresAt: new Date(Date.now() + 3_600_000).toISOString() }) },
  {
    key: 'post /api/v1/alerts/rules',
    url: () => '/api/v1/alerts/rules',
    body: () => ({
      id: 'any-user-cpu',
      title: 'Any user CPU',
      severity: 'warning',
      runbookUrl: 'https://runbooks.example/cpu',
      spec: { metric: { kind: 'series', series: 'cpu_user' }, windowMs: 3_600_000, threshold: -1, clearThreshold: -1, relative: { factor: 2, minValue: 0 } },
    }),
  },
  { key: 'patch /api/v1/alerts/rules/{id}', url: () => '/api/v1/alerts/rules/any-user-cpu', body: () => ({ title: 'Any user CPU at all' }) },
  {
    key: 'post /api/v1/alerts/channels',
    url: () => '/api/v1/alerts/channels',
    body: () => ({ kind: 'webhook', name: 'hook', url: 'http://127.0.0.1:9/hook', secret: 'sixteen-chars-or-more', matchers: [{ name: 'region', value: 'os.*', isRegex: true }] }),
    keep: (b) => (ids.channel = b.id as number),
  },
  { key: 'patch /api/v1/alerts/channels/{id}', url: () => `/api/v1/alerts/channels/${ids.channel}`, body: () => ({ minSeverity: 'warning' }) },
  {
    key: 'post /api/v1/alerts/silences',
    url: () => '/api/v1/alerts/silences',
    body: () => ({ matchers: [{ name: 'alertname', value: 'nothing-here' }], endsAt: new Date(Date.now() + 3_600_000).toISOString(), comment: 'maintenance', createdBy: 'pat' }),
    keep: (b) => (ids.silence = b.id as number),
  },
  { key: 'put /api/v1/alerts/{id}/acknowledgement', url: () => `/api/v1/alerts/${ids.alert}/acknowledgement`, body: () => ({ by: 'pat', comment: 'looking' }) },
];

const READS: Call[] = [
  { key: 'get /api/health', url: () => '/api/health' },
  { key: 'get /api/openapi.json', url: () => '/api/openapi.json' },
  { key: 'get /api/v1/auth/session', url: () => '/api/v1/auth/session', as: 'session' },
  { key: 'get /api/v1/auth/tokens', url: () => '/api/v1/auth/tokens', as: 'session' },
  { key: 'get /api/v1/admin/users', url: () => '/api/v1/admin/users' },
  { key: 'get /api/v1/admin/audit', url: () => '/api/v1/admin/audit?limit=1000' },
  { key: 'get /api/v1/admin/enrollment-keys', url: () => '/api/v1/admin/enrollment-keys' },
  { key: 'get /api/v1/fleet', url: () => '/api/v1/fleet?limit=25' },
  { key: 'get /api/v1/fleet/sparklines', url: () => `/api/v1/fleet/sparklines?metric=steal&ids=${ids.host},${ids.otherHost}` },
  { key: 'get /api/v1/fleet/demo', url: () => '/api/v1/fleet/demo' },
  { key: 'get /api/v1/latency', url: () => '/api/v1/latency?name=inference.request&region=oslo&points=30' },
  { key: 'get /api/v1/regions/compare', url: () => '/api/v1/regions/compare' },
  { key: 'get /api/v1/slo', url: () => '/api/v1/slo' },
  { key: 'get /api/v1/compare', url: () => '/api/v1/compare?metric=latency_p99&latency=inference.request' },
  { key: 'get /api/v1/compare/choices', url: () => '/api/v1/compare/choices' },
  { key: 'get /api/v1/hosts/{id}', url: () => `/api/v1/hosts/${ids.host}` },
  { key: 'get /api/v1/hosts/{id}/series', url: () => `/api/v1/hosts/${ids.host}/series?metric=disk_util` },
  { key: 'get /api/v1/hosts/{id}/latency-series', url: () => `/api/v1/hosts/${ids.host}/latency-series` },
  { key: 'get /api/v1/hosts/{id}/latency-explained', url: () => `/api/v1/hosts/${ids.host}/latency-explained?name=inference.request` },
  { key: 'get /api/v1/hosts/{id}/inventory', url: () => `/api/v1/hosts/${ids.host}/inventory` },
  { key: 'get /api/v1/hosts/{id}/annotations', url: () => `/api/v1/hosts/${ids.host}/annotations` },
  { key: 'get /api/v1/hosts/{id}/findings', url: () => `/api/v1/hosts/${ids.host}/findings?state=all` },
  { key: 'get /api/v1/findings', url: () => '/api/v1/findings?state=all' },
  { key: 'get /api/v1/findings/summary', url: () => '/api/v1/findings/summary?state=all' },
  { key: 'get /api/v1/findings/fixed', url: () => '/api/v1/findings/fixed' },
  { key: 'get /api/v1/findings/{id}', url: () => `/api/v1/findings/${ids.finding}` },
  { key: 'get /api/v1/findings/rules', url: () => '/api/v1/findings/rules' },
  { key: 'get /api/v1/findings/rules/{id}', url: () => '/api/v1/findings/rules/threads.oversubscribed' },
  { key: 'get /api/v1/findings/docs/{topic}', url: () => '/api/v1/findings/docs/latency-explained' },
  { key: 'get /api/v1/findings/thresholds', url: () => '/api/v1/findings/thresholds' },
  { key: 'get /api/v1/findings/residency-policies', url: () => '/api/v1/findings/residency-policies' },
  { key: 'get /api/v1/alerts', url: () => '/api/v1/alerts?state=all' },
  { key: 'get /api/v1/alerts/{id}', url: () => `/api/v1/alerts/${ids.alert}` },
  { key: 'get /api/v1/alerts/rules', url: () => '/api/v1/alerts/rules' },
  { key: 'get /api/v1/alerts/rules/{id}', url: () => '/api/v1/alerts/rules/any-user-cpu' },
  { key: 'get /api/v1/alerts/silences', url: () => '/api/v1/alerts/silences' },
  { key: 'get /api/v1/alerts/channels', url: () => '/api/v1/alerts/channels' },
  { key: 'get /api/v1/alerts/channels/{id}', url: () => `/api/v1/alerts/channels/${ids.channel}` },
  { key: 'get /api/v1/alerts/deliveries', url: () => '/api/v1/alerts/deliveries' },
];

/** Undoing writes answer their object too; they run last. */
const UNDOS: Call[] = [
  { key: 'delete /api/v1/findings/{id}/acknowledgement', url: () => `/api/v1/findings/${ids.finding}/acknowledgement` },
  { key: 'delete /api/v1/alerts/{id}/acknowledgement', url: () => `/api/v1/alerts/${ids.alert}/acknowledgement` },
  { key: 'delete /api/v1/alerts/silences/{id}', url: () => `/api/v1/alerts/silences/${ids.silence}` },
  { key: 'delete /api/v1/auth/tokens/{id}', url: () => `/api/v1/auth/tokens/${ids.token}`, as: 'session' },
  { key: 'delete /api/v1/admin/enrollment-keys/{id}', url: () => `/api/v1/admin/enrollment-keys/${ids.key}` },
];

const answersJson = (op: Operation) => op.ok.schema !== undefined && (op.ok.contentType ?? 'application/json') === 'application/json';

beforeAll(async () => {
  process.env.INFERWATCH_ALERT_ALLOW_PRIVATE = '1';
  process.env.INFERWATCH_LOCAL_SIGN_IN = 'off';
  process.env.INFERWATCH_ADMIN_TOKEN = ADMIN;
  process.env.INFERWATCH_SECRET_KEY = SECRET_KEY.toString('base64');
  testDb = await createTestDatabase();
  process.env.DATABASE_URL = testDb.url;
  const db = await getDb();
  await ensureDefaultRules(db.sql, DEFAULT_ALERT_RULES);
  const client = ingestClient(db);
  // PyTorch over GNU OpenMP with 8 threads on one CPU: threads.oversubscribed, with evidence, on the first host.
  const crowded = watchedProcess({ env: { OMP_NUM_THREADS: '8' }, threads: 9, cpusAllowedList: '0', cpusAllowedCount: 1, cgroup: null, runtimes: loaded('pytorch', 'gnu-openmp') });
  for (const [region, hostname] of [['oslo', 'oslo-a'], ['frankfurt', 'fra-b']] as const) {
    const key = await createEnrollmentKey(db, { name: region, region, labels: { team: 'ml' } });
    const host = await enrollHost(db, key.key, { hostname, machineId: null });
    if (region === 'oslo') ids.host = host.hostId;
    else ids.otherHost = host.hostId;
    const reports = reportSeries(90, Date.now() - 1_000, 10_000, (i, ts) => realisticReport(i, ts, host.hostId * 100 + i));
    reports[0]!.inventory = { ...cleanInventory(region === 'oslo' ? { processes: [crowded] } : {}), hash: `inv-${hostname}` };
    reports[45]!.inventory = { ...cleanInventory(region === 'oslo' ? { processes: [crowded] } : {}), hash: `inv-${hostname}-2`, host: { kernel: '6.8.0', memTotalBytes: 64e9, onlineCpus: 8 } };
    await client.send(host.token, reports);
  }
  await client.settle();
  await client.close();
  await rollUp(db.sql, new Date());
  await new FindingsEngine(db).runCycle(new Date());
  await new AlertEngine(db, { publicUrl: 'http://iw.test' }).runCycle(new Date());
  const [finding] = await rowsOf<{ id: number }>(db.sql, `SELECT id FROM findings WHERE host_id = $1 ORDER BY id LIMIT 1`, [ids.host]);
  ids.finding = finding!.id;
}, 120_000);

afterAll(async () => {
  await closeDb();
  await testDb?.drop();
});

describe('every JSON answer matches the schema the OpenAPI document gives it', () => {
  test('the calls here cover every operation that answers JSON', () => {
    const covered = new Set([...WRITES, ...READS, ...UNDOS].map((c) => c.key));
    const missing = OPERATIONS.filter(answersJson).map((op) => `${op.method} ${op.path}`).filter((key) => !covered.has(key));
    expect(missing).toEqual([]);
  });

  test('writes answer their object as its schema says', async () => {
    for (const write of WRITES) {
      if (write.key === 'post /api/v1/auth/tokens') session = await signIn();
      if (write.key === 'put /api/v1/alerts/{id}/acknowledgement') ids.alert = await firstAlertId();
      const { op, status, body } = await call(write);
      expect(status, `${write.key}: ${JSON.stringify(body)}`).toBe(op.ok.status);
      expectMatches(op.ok.schema!, body, write.key);
      write.keep?.(body as Record<string, unknown>);
    }
  });

  test.each(READS.map((read) => [read.key, read] as const))('%s', async (key, read) => {
    const { op, status, body } = await call(read);
    expect(status, JSON.stringify(body)).toBe(op.ok.status);
    expectMatches(op.ok.schema!, body, key);
  });

  test('the reads above saw the nested objects, not only empty lists', async () => {
    const findings = (await call({ key: 'get /api/v1/findings', url: () => '/api/v1/findings?state=all' })).body as { findings: { evidence: { values: unknown[] } }[] };
    expect(findings.findings.some((f) => f.evidence.values.length > 0)).toBe(true);
    const alerts = (await call({ key: 'get /api/v1/alerts', url: () => '/api/v1/alerts?state=all' })).body as { alerts: { acknowledgement: unknown }[] };
    expect(alerts.alerts.some((a) => a.acknowledgement !== null)).toBe(true);
    const host = (await call({ key: 'get /api/v1/hosts/{id}', url: () => `/api/v1/hosts/${ids.host}` })).body as { latest: unknown; inventory: unknown };
    expect(host.latest).not.toBeNull();
    expect(host.inventory).not.toBeNull();
    const inventory = (await call({ key: 'get /api/v1/hosts/{id}/inventory', url: () => `/api/v1/hosts/${ids.host}/inventory` })).body as { changes: unknown[] };
    expect(inventory.changes.length).toBeGreaterThan(0);
  });

  test('undoing writes answer their object as its schema says', async () => {
    for (const undo of UNDOS) {
      const { op, status, body } = await call(undo);
      expect(status, `${undo.key}: ${JSON.stringify(body)}`).toBe(op.ok.status);
      expectMatches(op.ok.schema!, body, undo.key);
    }
  });
});

async function signIn(): Promise<string> {
  const { POST } = await import('../../app/api/v1/auth/login/route');
  const response = await POST(
    new Request(`${ORIGIN}/api/v1/auth/login`, {
      method: 'POST',
      headers: { host: 'iw.example:3000', origin: ORIGIN, [CLIENT_ADDRESS_HEADER]: '192.0.2.7', 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'pat@example.com', password: PASSWORD }),
    }),
  );
  expect(response.status, await response.clone().text()).toBe(204);
  return response.headers.get('set-cookie')!.split(';')[0]!;
}

async function firstAlertId(): Promise<number> {
  const db = await getDb();
  const [alert] = await rowsOf<{ id: number }>(db.sql, `SELECT id FROM alerts WHERE resolved_at IS NULL ORDER BY id LIMIT 1`);
  if (!alert) throw new Error('the alert engine raised no alert to acknowledge');
  return alert.id;
}
