import type { Sql } from '../../lib/db/sql';
import type { SketchWire } from '../../lib/protocol';
import { rowsOf } from '../support/rows';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

/** A whole hour a few hours back, inside today's and yesterday's raw partitions. */
export function hourBefore(now: Date, hoursBack: number): number {
  return Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - hoursBack * HOUR_MS;
}

export async function insertHost(
  sql: Sql,
  host: { hostname: string; region: string; labels?: Record<string, string>; lastSeenAt?: Date | null },
): Promise<number> {
  const [row] = await rowsOf<{ id: number }>(sql,
    `INSERT INTO hosts (hostname, region, labels, token_hash, last_seen_at) VALUES ($1, $2, $3::jsonb, $4, $5) RETURNING id`,
    [host.hostname, host.region, JSON.stringify(host.labels ?? {}), `hash-${host.hostname}-${host.region}`, host.lastSeenAt ?? null],
  );
  return row!.id;
}

export async function insertHostSample(
  sql: Sql,
  hostId: number,
  ts: Date,
  values: { steal: number; iowait?: number; user?: number },
): Promise<void> {
  await sql.query(
    `INSERT INTO host_samples (host_id, ts, interval_ms, cpu_steal_pct, cpu_iowait_pct, cpu_user_pct)
     VALUES ($1, $2, 10000, $3, $4, $5)
     ON CONFLICT (host_id, ts) DO UPDATE SET cpu_steal_pct = EXCLUDED.cpu_steal_pct, cpu_iowait_pct = EXCLUDED.cpu_iowait_pct`,
    [hostId, ts, values.steal, values.iowait ?? 0, values.user ?? 10],
  );
}

export async function insertLatency(sql: Sql, hostId: number, ts: Date, name: string, wire: SketchWire, tags = ''): Promise<void> {
  await sql.query(
    `INSERT INTO latency_samples (host_id, ts, name, tags, count, sum, min, max, zero_count, keys, counts)
     VALUES ($1, $2, $3, $11, $4, $5, $6, $7, $8, $9::smallint[], $10::bigint[])`,
    [hostId, ts, name, wire.count, wire.sum, wire.min, wire.max, wire.zeroCount, wire.keys, wire.counts, tags],
  );
}

/** A deterministic pseudo-random sequence, so failures reproduce. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** What ingest keeps up to date: each host's newest stored report. */
export async function syncLastReportTs(sql: Sql): Promise<void> {
  await sql.query('UPDATE hosts h SET last_report_ts = (SELECT max(ts) FROM host_samples s WHERE s.host_id = h.id)');
}
