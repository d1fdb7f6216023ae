// The 10,000-host database of the fleet and ui benchmarks, in a fresh PostgreSQL database of its own.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../lib/db/open';
import { ensurePartitions } from '../lib/db/partitions';
import { poolSql } from '../lib/db/sql';
import { FLEET_HOSTS, generateBenchData, generateRollups } from './_queries-generate';

export const THIRTY_DAY_HOST_ID = FLEET_HOSTS + 1;

export async function adminStatement(baseUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Fills a migrated, empty database with the queries bench's fleet (10,000 hosts with a newest sample, 1,000 with
 * 24 h and latency, one with 30 days), two disks per report of the last hour and open findings on one host in
 * twenty, its newest reports ending at `endMs`.
 */
export async function fillFleetDatabase(db: Database, url: string, endMs: number): Promise<void> {
  const now = new Date(endMs);
  await ensurePartitions(db.sql, now, 31, 2);
  const extra = new pg.Pool({ connectionString: url, max: 1 });
  const sqls = [db.sql, poolSql(extra)];
  await generateBenchData(sqls, endMs);
  await generateRollups(sqls, endMs);
  await extra.end();
  // Two disks on every report of the last hour, and open findings on one host in twenty.
  await db.sql.query(
    `INSERT INTO disk_sample_arrays
     SELECT host_id, ts, ARRAY['vda', 'vdb'], ARRAY[10, 5]::real[], ARRAY[30, 8]::real[], ARRAY[4e4, 1e4], ARRAY[2e5, 5e4],
            ARRAY[0.8, 1.2]::real[], ARRAY[2.1, 3]::real[], ARRAY[random() * 4, random()]::real[], ARRAY[0, 0], ARRAY[3.2, 1]::real[]
       FROM host_samples WHERE ts > $1`,
    [new Date(endMs - 3_600_000)],
  );
  await db.sql.query(
    `INSERT INTO findings (rule_id, host_id, region, severity, state, message, remedy, evidence, first_seen_at, opened_at, last_evaluated_at)
     SELECT 'cpu.steal-high', h.id, h.region, (ARRAY['critical', 'warning', 'info'])[1 + h.id % 3], 'open', 'steal 12 %', 'move', '{}', $1, $1, $1
       FROM hosts h WHERE h.id % 20 = 0`,
    [now],
  );
  await db.sql.exec('ANALYZE');
}

/** That fleet in a fresh database of its own; returns its name, URL and end time. */
export async function createFleetDatabase(baseUrl: string, prefix: string): Promise<{ name: string; url: string; endMs: number }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await adminStatement(baseUrl, `CREATE DATABASE "${name}"`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const endMs = Math.floor(Date.now() / 10_000) * 10_000;
  const db = await openDatabase({ kind: 'server', url: url.toString() });
  try {
    console.log(`generating into ${name}`);
    await fillFleetDatabase(db, url.toString(), endMs);
  } finally {
    await db.close();
  }
  return { name, url: url.toString(), endMs };
}
