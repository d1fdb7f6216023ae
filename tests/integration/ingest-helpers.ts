import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { openDatabase, type Database } from '../../lib/db/open';
import { createEnrollmentKey } from '../../lib/auth/enrollment-keys';
import { enrollHost } from '../../lib/auth/enroll-host';
import { rowsOf } from '../support/rows';

export const BASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  db: Database;
  url?: string;
  drop(): Promise<void>;
}

/** A fresh database on the PostgreSQL server, dropped afterwards. */
export async function createServerDatabase(): Promise<TestDatabase> {
  const name = `iw_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client(BASE_URL);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(BASE_URL);
  url.pathname = `/${name}`;
  const db = await openDatabase({ kind: 'server', url: url.toString() });
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      const client = new pg.Client(BASE_URL);
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Embedded PGlite in a temporary folder. */
export async function createEmbeddedDatabase(): Promise<TestDatabase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-ingest-'));
  const db = await openDatabase({ kind: 'embedded', dataDir: path.join(dir, 'data') });
  return {
    db,
    async drop() {
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function enrolledHost(db: Database, hostname = `host-${randomBytes(4).toString('hex')}`) {
  const key = await createEnrollmentKey(db, { name: 'test', region: 'oslo', labels: { team: 'ml' } });
  const enrolled = await enrollHost(db, key.key, { hostname, machineId: null });
  return { ...enrolled, enrollmentKey: key };
}

export const SERIES_COUNTS = ['report_ledger', 'host_samples', 'cpu_samples', 'disk_samples', 'cgroup_samples', 'process_samples', 'latency_samples', 'inventory_snapshots'] as const;

export async function rowCounts(db: Database): Promise<Record<(typeof SERIES_COUNTS)[number], number>> {
  const counts = {} as Record<(typeof SERIES_COUNTS)[number], number>;
  for (const table of SERIES_COUNTS) {
    const [row] = await rowsOf<{ n: number }>(db.sql, `SELECT count(*)::int AS n FROM ${table}`);
    counts[table] = Number(row!.n);
  }
  return counts;
}

export function jsonBody(value: unknown, gzip = true): { body: Buffer; contentEncoding: string | null } {
  const raw = Buffer.from(JSON.stringify(value));
  return gzip ? { body: gzipSync(raw), contentEncoding: 'gzip' } : { body: raw, contentEncoding: null };
}
