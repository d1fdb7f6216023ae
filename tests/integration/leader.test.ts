import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { electLeader, type Leadership } from '../../lib/db/leader';
import { LEADER_LOCK_ID } from '../../lib/db/locks';
import type { DatabaseTarget } from '../../lib/db/target';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';

/** When `check` first held: until() and the time it returned. */
const untilAt = (what: string, check: () => boolean) => until(what, check).then(() => Date.now());

const RETRY_MS = 1_000;
const CHECK_TIMEOUT_MS = 1_500;
/** Scheduling and query time on a busy machine, on top of the intervals the contenders were given. */
const SLACK_MS = 1_000;

let database: TestDatabase;
let admin: pg.Client;
const contenders: Contender[] = [];
const proxies: FreezableProxy[] = [];

interface Contender {
  name: string;
  leadership: Leadership;
  elected: number[];
  deposed: number[];
}

interface ContenderOptions {
  target?: DatabaseTarget;
  retryMs?: number;
  /** How long its leader work takes to stop once it is deposed. */
  windDownMs?: number;
}

function contend(name: string, { target = { kind: 'server', url: database.url }, retryMs = RETRY_MS, windDownMs = 0 }: ContenderOptions = {}): Contender {
  const contender: Contender = { name, leadership: undefined as unknown as Leadership, elected: [], deposed: [] };
  contender.leadership = electLeader(target, {
    retryMs,
    checkTimeoutMs: CHECK_TIMEOUT_MS,
    onElected: () => contender.elected.push(Date.now()),
    onDeposed: async () => {
      contender.deposed.push(Date.now());
      await new Promise((resolve) => setTimeout(resolve, windDownMs));
    },
    onError: () => {},
  });
  contenders.push(contender);
  return contender;
}


const leaders = () => contenders.filter((c) => c.leadership.isLeader());

async function lockHolders(): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(
    `SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database
      WHERE l.locktype = 'advisory' AND l.objid = $1 AND l.granted AND d.datname = $2`,
    [LEADER_LOCK_ID, database.name],
  );
  return rows.map((r) => r.pid);
}

/** A TCP hop to PostgreSQL that can go silent (a partition: nothing passes, nothing is closed) and then be cut. */
class FreezableProxy {
  private readonly pairs: [net.Socket, net.Socket][] = [];
  private server: net.Server | null = null;
  port = 0;

  async start(): Promise<this> {
    const upstream = new URL(database.url);
    this.server = net.createServer((client) => {
      const server = net.connect(Number(upstream.port || 5432), upstream.hostname);
      client.pipe(server);
      server.pipe(client);
      client.on('error', () => server.destroy());
      server.on('error', () => client.destroy());
      this.pairs.push([client, server]);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this;
  }

  get url(): string {
    const url = new URL(database.url);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  freeze(): void {
    for (const [client, server] of this.pairs) {
      client.unpipe(server);
      server.unpipe(client);
      client.pause();
      server.pause();
    }
  }

  /** What PostgreSQL does to a silent client once its keepalives go unanswered. */
  cutServerSide(): void {
    for (const [, server] of this.pairs) server.destroy();
  }

  async close(): Promise<void> {
    for (const [client, server] of this.pairs) {
      client.destroy();
      server.destroy();
    }
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

beforeAll(async () => {
  database = await createTestDatabase('iw_leader');
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
});

afterEach(async () => {
  for (const c of contenders.splice(0)) await c.leadership.stop();
  for (const p of proxies.splice(0)) await p.close();
});

afterAll(async () => {
  await admin?.end();
  await database?.drop();
});

describe('leadership by a session advisory lock', () => {
  test('of two contenders on one database exactly one leads, and keeps leading while its session lives', async () => {
    const a = contend('a');
    const b = contend('b');
    await until('a leader', () => leaders().length > 0);
    // Several tries of the follower later, still one leader, never two.
    const watchUntil = Date.now() + 4 * RETRY_MS;
    while (Date.now() < watchUntil) {
      expect(leaders()).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(a.elected.length + b.elected.length).toBe(1);
    expect(await lockHolders()).toHaveLength(1);
  });

  test("when the leader's session ends it is deposed at once, and a new session leads by the next try", async () => {
    // Tries far apart, so a deposition within a second comes from the session's end, not from a later check.
    const retryMs = 5_000;
    contend('a', { retryMs });
    contend('b', { retryMs });
    await until('a leader', () => leaders().length === 1);
    const [leader] = leaders();
    const [pid] = await lockHolders();
    const electionsBefore = contenders.reduce((n, c) => n + c.elected.length, 0);

    const endedAt = Date.now();
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await until('the leader to step down', () => !leader!.leadership.isLeader());
    expect(leader!.deposed[0]! - endedAt).toBeLessThan(SLACK_MS);

    // Either contender may win the next try, the deposed one included: on a session of its own.
    const takenAt = await untilAt('a new leader', () => contenders.reduce((n, c) => n + c.elected.length, 0) > electionsBefore);
    expect(takenAt - endedAt).toBeLessThanOrEqual(retryMs + SLACK_MS);
    expect(leaders()).toHaveLength(1);
    const holders = await lockHolders();
    expect(holders).toHaveLength(1);
    expect(holders[0]).not.toBe(pid);
  });

  test('a leader whose session goes silent steps down after its check times out, before the server lets go of the lock', async () => {
    const proxy = await new FreezableProxy().start();
    proxies.push(proxy);
    const behindProxy = contend('behind-proxy', { target: { kind: 'server', url: proxy.url } });
    await until('the contender behind the proxy to lead', () => behindProxy.leadership.isLeader());
    const direct = contend('direct');

    const frozenAt = Date.now();
    proxy.freeze();
    const steppedDownAt = await untilAt('the silent leader to step down', () => !behindProxy.leadership.isLeader());
    expect(steppedDownAt - frozenAt).toBeLessThanOrEqual(RETRY_MS + CHECK_TIMEOUT_MS + SLACK_MS);
    // PostgreSQL still holds its session, so nobody else may lead yet.
    expect(direct.leadership.isLeader()).toBe(false);
    expect(await lockHolders()).toHaveLength(1);

    const cutAt = Date.now();
    proxy.cutServerSide();
    const takenAt = await untilAt('the other contender to lead', () => direct.leadership.isLeader());
    expect(takenAt - cutAt).toBeLessThanOrEqual(RETRY_MS + SLACK_MS);
  });

  test('a leader that stops winds its work down before it releases the lock; only then does the follower lead', async () => {
    const windDownMs = 3 * RETRY_MS;
    const a = contend('a', { windDownMs });
    await until('a to lead', () => a.leadership.isLeader());
    const b = contend('b');
    await a.leadership.stop();
    const takenAt = await untilAt('b to lead', () => b.leadership.isLeader());
    expect(a.deposed).toHaveLength(1);
    expect(takenAt).toBeGreaterThanOrEqual(a.deposed[0]! + windDownMs);
    expect(takenAt - (a.deposed[0]! + windDownMs)).toBeLessThanOrEqual(RETRY_MS + SLACK_MS);
  });

  test('on the embedded database the one process always leads, from the start', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-leader-'));
    try {
      const sole = contend('embedded', { target: { kind: 'embedded', dataDir: dir } });
      await until('the embedded process to lead', () => sole.leadership.isLeader(), 1_000);
      expect(sole.elected).toHaveLength(1);
      await sole.leadership.stop();
      expect(sole.deposed).toHaveLength(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
