import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createIngestFeed } from '../../lib/alerts/ingest-feed';
import { forwardIngestFeed, listenToIngestFeed } from '../../lib/alerts/shared-ingest-feed';
import { poolSql } from '../../lib/db/sql';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { until } from '../support/until';

const RETRY_MS = 300;

let database: TestDatabase;
let pools: pg.Pool[] = [];
const stops: (() => Promise<void>)[] = [];

/** One replica's side: its own pool and its own in-process feed, forwarded to the database. */
function replica() {
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  pools.push(pool);
  const feed = createIngestFeed();
  const forwarder = forwardIngestFeed(poolSql(pool), feed, { batchMs: 20 });
  stops.push(() => forwarder.stop());
  return feed;
}

/** The leader's side: every id any replica forwarded. */
function leaderView() {
  const heard = new Set<number>();
  const feed = createIngestFeed();
  feed.subscribe((ids) => ids.forEach((id) => heard.add(id)));
  const listener = listenToIngestFeed(database.url, feed, { retryMs: RETRY_MS, onError: () => {} });
  stops.push(() => listener.close());
  return heard;
}


async function listening(): Promise<number[]> {
  const { rows } = await pools[0]!.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'",
  );
  return rows.map((r) => r.pid);
}

beforeAll(async () => {
  database = await createTestDatabase('iw_shared_feed');
});

afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  for (const pool of pools) await pool.end();
  pools = [];
});

afterAll(async () => {
  await database?.drop();
});

describe('the ingest feed shared through PostgreSQL', () => {
  test('the leader hears the hosts that reported to any replica, its own included', async () => {
    const a = replica();
    const b = replica();
    const heard = leaderView();
    await until('the listener', async () => (await listening()).length === 1);
    a.publish([1, 2]);
    b.publish([3]);
    a.publish([2, 4]);
    await until('every host', () => heard.size === 4);
    expect([...heard].sort()).toEqual([1, 2, 3, 4]);
  });

  test('a batch larger than one notification holds arrives whole', async () => {
    const a = replica();
    const heard = leaderView();
    await until('the listener', async () => (await listening()).length === 1);
    const ids = Array.from({ length: 2_345 }, (_, i) => 1_000_000_000 + i);
    a.publish(ids);
    await until('every host', () => heard.size === ids.length);
  });

  test('a listener whose connection is cut listens again after its retry interval', async () => {
    const a = replica();
    const heard = leaderView();
    await until('the listener', async () => (await listening()).length === 1);
    const [pid] = await listening();
    await pools[0]!.query('SELECT pg_terminate_backend($1)', [pid]);
    await until('a new listening session', async () => {
      const pids = await listening();
      return pids.length === 1 && pids[0] !== pid;
    });
    a.publish([7]);
    await until('the host', () => heard.has(7));
  });
});
