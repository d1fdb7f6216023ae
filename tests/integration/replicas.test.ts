import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createChannel } from '../../lib/alerts/channels/channel-store';
import { SecretBox } from '../../lib/alerts/channels/secret-box';
import { DEFAULT_ALERT_RULES } from '../../lib/alerts/default-rules';
import { createRule, ensureDefaultRules } from '../../lib/alerts/store/rules';
import { openDatabase, type Database } from '../../lib/db/open';
import { alertRuleInputSchema, type WebhookPayload } from '../../lib/protocol/alerts';
import type { Report } from '../../lib/protocol';
import { MINUTE_MS } from '../../lib/protocol/time';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { enableOnly, shapedReport } from './alerts-helpers';
import { Receiver } from './alerts-receiver';
import { enrolledHost } from './ingest-helpers';
import { rowsOf } from '../support/rows';
import { until } from '../support/until';

// Two replicas on one database, as behind a load balancer: agents' reports go to both in turn, one of them leads the
// background jobs. A steal spike opens a finding and fires an alert, the leader is SIGKILLed in the middle of its
// background work, and the other must take over without repeating anything. Every wait is on a condition in the
// database or the replicas' output; the bounds on timing are the intervals injected here plus a fixed slack.
const RETRY_MS = 1_000;
const CHECK_TIMEOUT_MS = 10_000;
const CYCLE_MS = 300;
const REPORT_EVERY_MS = 1_000;
/** Process start, query and scheduling time on a busy machine, on top of the injected intervals. */
const SLACK_MS = 3_000;
const WAIT_MS = 90_000;
const SECRET_KEY = Buffer.alloc(32, 7);
const SPIKE_STEAL_PCT = 40;
const CALM_STEAL_PCT = 1;
const repoRoot = path.resolve(import.meta.dirname, '../..');

const STEAL_RULE = alertRuleInputSchema.parse({
  id: 'replica-steal',
  title: 'CPU steal (replica test)',
  severity: 'warning',
  spec: {
    metric: { kind: 'series', series: 'cpu_steal', aggregation: 'avg' },
    windowMs: 10_000,
    threshold: 10,
    clearThreshold: 5,
    forMs: 0,
    clearForMs: 0,
  },
});

interface ReplicaEvent {
  event: 'listening' | 'elected' | 'deposed';
  atMs: number;
  port?: number;
}

interface Replica {
  name: string;
  child: ChildProcess;
  port: number;
  events: ReplicaEvent[];
  stderr: string[];
  alive: boolean;
}

interface Agent {
  hostId: number;
  token: string;
  seq: number;
  stealPct: number;
}

let database: TestDatabase;
let db: Database;
let receiver: Receiver;
let stateDir: string;
const replicas: Replica[] = [];
const agents: Agent[] = [];
let reportTimer: NodeJS.Timeout | undefined;
let reporting: Promise<void> = Promise.resolve();
let roundRobin = 0;
/** Reports answered 200, by replica; and what failed, with the replica it was sent to. */
const stored = new Map<string, number>();
const failed: { replica: string; error: string; atMs: number }[] = [];

function startReplica(name: string): Promise<Replica> {
  const url = new URL(database.url);
  url.searchParams.set('application_name', `replica-${name}`);
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './scripts/register-server-runtime.mjs', 'tests/support/replica-process.ts'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DATABASE_URL: url.toString(),
      INFERWATCH_STATE_DIR: path.join(stateDir, name),
      INFERWATCH_SECRET_KEY: SECRET_KEY.toString('hex'),
      INFERWATCH_ALERT_ALLOW_PRIVATE: '1',
      INFERWATCH_INGEST_REQUESTS_PER_S: '100',
      INFERWATCH_INGEST_REQUEST_BURST: '1000',
      REPLICA_RETRY_MS: String(RETRY_MS),
      REPLICA_CHECK_TIMEOUT_MS: String(CHECK_TIMEOUT_MS),
      REPLICA_CYCLE_MS: String(CYCLE_MS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const replica: Replica = { name, child, port: 0, events: [], stderr: [], alive: true };
  replicas.push(replica);
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.startsWith('{')) replica.events.push(JSON.parse(line) as ReplicaEvent);
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => replica.stderr.push(chunk.toString('utf8')));
  child.once('exit', () => (replica.alive = false));
  return until(`replica ${name} to listen`, () => {
    if (!replica.alive) throw new Error(`replica ${name} exited: ${replica.stderr.join('')}`);
    const listening = replica.events.find((e) => e.event === 'listening');
    if (listening) replica.port = listening.port!;
    return listening !== undefined;
  }, WAIT_MS).then(() => replica);
}


async function send(replica: Replica, agent: Agent, reports: Report[]): Promise<void> {
  try {
    const response = await fetch(`http://127.0.0.1:${replica.port}/api/v1/ingest`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ reports })),
    });
    if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
    stored.set(replica.name, (stored.get(replica.name) ?? 0) + reports.length);
  } catch (err) {
    failed.push({ replica: replica.name, error: String(err), atMs: Date.now() });
  }
}

/** Every agent's report for this second, each to the next live replica in turn, as a round-robin balancer sends them. */
async function reportOnce(): Promise<void> {
  for (const agent of agents) {
    const live = replicas.filter((r) => r.alive);
    if (live.length === 0) return;
    const stealPct = agent.stealPct;
    const report = shapedReport(agent.seq++, Date.now(), { stealPct, perCpuStealPct: [stealPct, stealPct, stealPct, stealPct] });
    await send(live[roundRobin++ % live.length]!, agent, [{ ...report, intervalMs: REPORT_EVERY_MS }]);
  }
}

const eventsOf = (replica: Replica, event: ReplicaEvent['event']) => replica.events.filter((e) => e.event === event);

async function leaderGauge(replica: Replica): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${replica.port}/metrics`)).text();
  return Number(/^inferwatch_leader (\S+)$/m.exec(text)?.[1]);
}

/** Kills `leader` at a moment it is running background work, and says which statement that was. */
async function killMidCycle(leader: Replica): Promise<{ killedAtMs: number; state: string; query: string }> {
  return until('the leader in the middle of its background work', async () => {
    const [busy] = await rowsOf<{ state: string; query: string }>(db.sql,
      `SELECT state, query FROM pg_stat_activity
        WHERE application_name = $1 AND state IN ('active', 'idle in transaction')
          AND query ~* '(findings|alerts|alert_deliveries|rollup|_1m)'`,
      [`replica-${leader.name}`],
    );
    if (!busy) return null;
    leader.child.kill('SIGKILL');
    return { killedAtMs: Date.now(), state: busy.state, query: busy.query.replace(/\s+/g, ' ').slice(0, 120) };
  }, 30_000);
}

beforeAll(async () => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-replicas-'));
  receiver = await new Receiver().start();
  database = await createTestDatabase('iw_replicas');
  db = await openDatabase({ kind: 'server', url: database.url });
  await ensureDefaultRules(db.sql, DEFAULT_ALERT_RULES);
  await createRule(db, STEAL_RULE);
  await enableOnly(db, [STEAL_RULE.id]);
  await createChannel(
    db,
    new SecretBox(SECRET_KEY),
    { kind: 'webhook', name: 'receiver', url: receiver.url, secret: 'replica-test-signing-secret', minSeverity: 'info', matchers: [], enabled: true },
    { allowPrivate: true, allowedNetworks: [] },
  );
  for (let i = 0; i < 3; i++) {
    const host = await enrolledHost(db, `replica-host-${i}`);
    agents.push({ hostId: host.hostId, token: host.token, seq: 0, stealPct: CALM_STEAL_PCT });
  }
});

afterAll(async () => {
  clearInterval(reportTimer);
  await reporting;
  for (const replica of replicas) if (replica.alive) replica.child.kill('SIGKILL');
  await receiver?.stop();
  await db?.close();
  await database?.drop();
  fs.rmSync(stateDir, { recursive: true, force: true });
});

describe('two replicas on one database', () => {
  test('when the leader is killed mid-cycle the other leads within its retry interval, repeating no finding, alert or notification', { timeout: 300_000 }, async ({ onTestFailed }) => {
    onTestFailed(() => {
      for (const r of replicas) console.error(`replica ${r.name}: ${JSON.stringify(r.events)}\n${r.stderr.join('')}`);
    });
    await Promise.all([startReplica('a'), startReplica('b')]);
    const firstLeader = await until('a leader', () => replicas.find((r) => eventsOf(r, 'elected').length > 0), WAIT_MS);
    const follower = replicas.find((r) => r !== firstLeader)!;
    // The follower tries every RETRY_MS: several of its tries later, it still has not been elected.
    await new Promise((resolve) => setTimeout(resolve, 3 * RETRY_MS));
    expect(eventsOf(follower, 'elected')).toEqual([]);
    expect(await leaderGauge(firstLeader)).toBe(1);
    expect(await leaderGauge(follower)).toBe(0);

    reportTimer = setInterval(() => (reporting = reporting.then(reportOnce)), REPORT_EVERY_MS);
    await until('reports stored through both replicas', () => replicas.every((r) => (stored.get(r.name) ?? 0) > 0), WAIT_MS);
    const spiking = agents[0]!;
    spiking.stealPct = SPIKE_STEAL_PCT;

    // The spike opens one finding and fires one alert, whose notification reaches the receiver.
    await until('the steal finding', async () => (await stealFindings(spiking.hostId)).some((f) => f.state === 'open'), WAIT_MS);
    const firing = await until('the alert to fire', async () => (await stealAlerts()).find((a) => a.state === 'firing'), WAIT_MS);
    await until('the firing notification', () => notifications().some((n) => n.event === 'firing'), WAIT_MS);
    await until('the firing delivery to be recorded', async () => (await deliveries()).every((d) => d.status === 'delivered'), WAIT_MS);

    const kill = await killMidCycle(firstLeader);
    console.log(`replicas: killed leader ${firstLeader.name} while ${kill.state}: ${kill.query}`);
    const elected = await until('the follower to lead', () => eventsOf(follower, 'elected')[0], WAIT_MS);
    const takeoverMs = elected.atMs - kill.killedAtMs;
    console.log(`replicas: ${follower.name} led ${takeoverMs} ms after the kill (follower retry interval ${RETRY_MS} ms)`);
    expect(takeoverMs).toBeLessThanOrEqual(RETRY_MS + SLACK_MS);
    expect(await leaderGauge(follower)).toBe(1);

    // Ingest keeps working on the survivor, and it rolls up: a report of a new host from three minutes ago (a late
    // minute, past the watermark) is rolled by the new leader only.
    const storedByFollowerAtKill = stored.get(follower.name) ?? 0;
    const failuresAtKill = failed.length;
    const late = await enrolledHost(db, 'replica-late-host');
    const lateTs = Date.now() - 3 * MINUTE_MS;
    await send(follower, { hostId: late.hostId, token: late.token, seq: 0, stealPct: 0 }, [shapedReport(0, lateTs)]);
    await until('the late minute rolled up by the new leader', async () => {
      const rows = await db.sql.query('SELECT 1 FROM host_samples_1m WHERE host_id = $1 AND ts = $2', [
        late.hostId,
        new Date(Math.floor(lateTs / MINUTE_MS) * MINUTE_MS),
      ]);
      return rows.length === 1;
    }, WAIT_MS);

    // The spike ends: the new leader resolves the alert it took over and notifies the receiver once.
    spiking.stealPct = CALM_STEAL_PCT;
    await until('the alert to resolve', async () => (await stealAlerts()).every((a) => a.state === 'resolved'), WAIT_MS);
    await until('the resolved notification', () => notifications().some((n) => n.event === 'resolved'), WAIT_MS);
    await until('every delivery recorded', async () => (await deliveries()).every((d) => d.status === 'delivered'), WAIT_MS);
    expect(stored.get(follower.name)! - storedByFollowerAtKill).toBeGreaterThan(3);
    expect(failed.slice(failuresAtKill).filter((f) => f.replica === follower.name)).toEqual([]);

    // Nothing was repeated: one occurrence of the finding and of the alert, each notification delivered once.
    expect((await stealFindings(spiking.hostId)).map((f) => f.state)).toEqual(['open']);
    expect((await stealAlerts()).map((a) => ({ id: a.id, state: a.state }))).toEqual([{ id: firing.id, state: 'resolved' }]);
    expect(notifications().map((n) => `${n.alertId} ${n.event}`)).toEqual([`${firing.id} firing`, `${firing.id} resolved`]);
    expect((await deliveries()).map((d) => `${d.event} ${d.status} ${d.attempts}`)).toEqual(['firing delivered 1', 'resolved delivered 1']);
    const duplicates = await db.sql.query(
      `SELECT rule_id, host_id, subject FROM findings WHERE state <> 'resolved' GROUP BY 1, 2, 3 HAVING count(*) > 1`,
    );
    expect(duplicates).toEqual([]);
    expect(eventsOf(follower, 'elected')).toHaveLength(1);

    clearInterval(reportTimer);
    await reporting;
    // A follower-turned-leader that is told to stop winds its jobs down and exits cleanly.
    const exited = new Promise<number | null>((resolve) => follower.child.once('exit', (code) => resolve(code)));
    follower.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(eventsOf(follower, 'deposed')).toHaveLength(1);
  });
});

async function stealFindings(hostId: number) {
  return rowsOf<{ id: number; state: string }>(db.sql,
    `SELECT id, state FROM findings WHERE rule_id = 'cpu.steal-high' AND host_id = $1 ORDER BY id`,
    [hostId],
  );
}

async function stealAlerts() {
  return rowsOf<{ id: number; state: string }>(db.sql, 'SELECT id, state FROM alerts WHERE rule_id = $1 ORDER BY id', [STEAL_RULE.id]);
}

async function deliveries() {
  return rowsOf<{ event: string; status: string; attempts: number }>(db.sql, 'SELECT event, status, attempts FROM alert_deliveries ORDER BY id');
}

function notifications(): { alertId: number; event: string }[] {
  return receiver.accepted().map((r) => {
    const payload = JSON.parse(r.body) as WebhookPayload;
    return { alertId: payload.alert.id, event: payload.event };
  });
}
