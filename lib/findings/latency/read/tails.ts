import { z } from 'zod';
import { column, queryRows } from '../../../db/rows';
import type { Sql } from '../../../db/sql';
import { TAIL_NEED_SQL, type TailRow } from '../tail-p99';

// The per-host histogram rollups (lib/series/rollup-sql.ts writes them).
const HISTOGRAMS = { '1m': 'latency_1m', '1h': 'latency_1h' } as const;

const tailRow = z.object({
  host_id: column.id,
  name: z.string(),
  ts: z.number(),
  count: z.number(),
  zero_count: z.number(),
  min: column.float,
  max: column.float,
  keys: z.string(),
  counts: z.string(),
}) satisfies z.ZodType<TailRow>;

/**
 * The top buckets (see TailRow) of each host's and series' rolled histograms at each of `buckets` (bucket starts, epoch
 * ms). One statement per bucket, in turn: with one `ts`, rows come in index order and the window needs no sort.
 */
export async function readTails(sql: Sql, level: '1m' | '1h', hostIds: readonly number[], buckets: readonly number[]): Promise<TailRow[]> {
  if (hostIds.length === 0) return [];
  const read = (t: number) =>
    queryRows(
      sql,
      HISTOGRAMS[level],
      tailRow,
      `SELECT host_id, name, $3::float8 AS ts, count, zero_count, min, max,
              array_to_string(keys[greatest(1, cardinality(keys) - need + 1):], ',') AS keys,
              array_to_string(counts[greatest(1, cardinality(counts) - need + 1):], ',') AS counts
         FROM (SELECT l.host_id, l.name, l.count::float8 AS count, l.zero_count::float8 AS zero_count, l.min, l.max,
                      l.keys, l.counts, ${TAIL_NEED_SQL('sum(l.count) OVER g')}::int AS need
                 FROM ${HISTOGRAMS[level]} l WHERE l.host_id = ANY($1::int4[]) AND l.ts = $2
               WINDOW g AS (PARTITION BY l.host_id, l.name)) x
        ORDER BY host_id, name`,
      [hostIds, new Date(t), t],
    );
  let rows: TailRow[] = [];
  for (const t of buckets) rows = rows.concat(await read(t));
  return rows;
}
