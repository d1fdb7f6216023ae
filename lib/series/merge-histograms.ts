import { z } from 'zod';
import { queryRows } from '../db/rows';
import type { SketchWire } from '../protocol';
import type { Sql } from '../db/sql';
import type { SeriesResolution } from '../protocol/read-api/series';
import type { Segment } from './resolution';

const HOST_SOURCE: Record<SeriesResolution, string> = {
  raw: 'latency_samples x JOIN hosts h ON h.id = x.host_id',
  '1m': 'latency_1m x JOIN hosts h ON h.id = x.host_id',
  '1h': 'latency_1h x JOIN hosts h ON h.id = x.host_id',
};
// Region rollups stand in for `h` with their own region column, so conditions on h.region read both alike.
const REGION_SOURCE: Record<SeriesResolution, string> = {
  ...HOST_SOURCE,
  '1m': 'latency_region_1m x CROSS JOIN LATERAL (SELECT x.region) h',
  '1h': 'latency_region_1h x CROSS JOIN LATERAL (SELECT x.region) h',
};

export interface MergeQuery {
  segments: Segment[];
  /** SQL expressions over `x` (the histogram row) and `h` (its host) to group by, e.g. `h.region`. */
  groups: string[];
  /** Extra condition over `x` and `h`, with parameters numbered from 1. */
  where: string;
  params: unknown[];
  /** Read rolled-up segments from the region rollups: `groups` and `where` may then use only `h.region` and `x`. */
  byRegion?: boolean;
}

export interface MergedRow {
  groups: unknown[];
  wire: SketchWire;
  /**
   * Per key of `wire`, the widest error of a model server's bucket merged into it (Infinity: its open top bucket;
   * null: only the agent's own sketches); null when no row came from a server's histogram.
   */
  bucketErrors: (number | null)[] | null;
}

// Without groups, a range without histograms still yields one summary row, of nulls. The groups (g0, g1, …) are the
// caller's expressions, passed through as the database returns them.
const mergedRow = z.looseObject({
  count: z.number().nullable(),
  sum: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  zero_count: z.number().nullable(),
  has_errors: z.boolean().nullable(),
  keys: z.array(z.number()).nullable(),
  counts: z.array(z.number()).nullable(),
  // A bucket error is Infinity for a server's open top bucket (le="+Inf").
  errors: z.array(z.union([z.number(), z.literal([Infinity])]).nullable()).nullable(),
});

/** Sums histogram counts key by key over every matching row of every segment, per group — never averaging quantiles. */
export async function mergeHistograms(sql: Sql, query: MergeQuery): Promise<MergedRow[]> {
  if (query.segments.length === 0) return [];
  const params = [...query.params];
  const g = query.groups.map((_, i) => `g${i}`);
  const gSelect = query.groups.map((expr, i) => `${expr} AS g${i}`);
  const parts = query.segments.map((segment) => {
    params.push(new Date(segment.fromMs), new Date(segment.toMs));
    return `SELECT ${[...gSelect, 'x.count', 'x.sum', 'x.min', 'x.max', 'x.zero_count', 'x.keys', 'x.counts', 'x.bucket_errors'].join(', ')}
      FROM ${(query.byRegion ? REGION_SOURCE : HOST_SOURCE)[segment.resolution]}
      WHERE x.ts >= $${params.length - 1} AND x.ts < $${params.length} AND (${query.where})`;
  });
  const gList = g.length ? `${g.join(', ')}, ` : '';
  const groupBy = g.length ? `GROUP BY ${g.join(', ')}` : '';
  // One key per group that is never NULL (jsonb's null is a value): joining on it keeps a group whose value is NULL,
  // which USING over the columns would drop, and stays a hash join, which IS NOT DISTINCT FROM would not.
  const groupKey = g.length ? `, jsonb_build_array(${g.join(', ')}) AS group_key` : '';
  const join = g.length ? 'USING (group_key)' : 'ON TRUE';
  const rows = await queryRows(
    sql,
    'latency_samples',
    mergedRow,
    `WITH src AS (${parts.join('\nUNION ALL\n')}),
    summary AS (
      SELECT ${gList}sum(count)::float8 AS count, sum(sum)::float8 AS sum, min(min)::float8 AS min,
             max(max)::float8 AS max, sum(zero_count)::float8 AS zero_count, bool_or(bucket_errors IS NOT NULL) AS has_errors${groupKey}
      FROM src ${groupBy}
    ), per_key AS (
      SELECT ${gList}u.k, sum(u.c)::float8 AS c, max(u.e)::float8 AS e FROM src, unnest(src.keys, src.counts, src.bucket_errors) AS u(k, c, e)
      GROUP BY ${gList}u.k
    ), merged AS (
      SELECT array_agg(k ORDER BY k) AS keys, array_agg(c ORDER BY k) AS counts, array_agg(e ORDER BY k) AS errors${groupKey}
      FROM per_key ${groupBy}
    )
    SELECT s.*, m.keys, m.counts, m.errors FROM summary s LEFT JOIN merged m ${join}`,
    params,
  );
  return rows.flatMap((row) => {
    // Every aggregate of a non-empty group is set; only a summary over no row has nulls.
    const { count, sum, min, max, zero_count: zeroCount } = row;
    if (count === null || !(count > 0) || sum === null || min === null || max === null || zeroCount === null) return [];
    return [
      {
        groups: g.map((name) => row[name]),
        wire: { count, sum, min, max, zeroCount, keys: row.keys ?? [], counts: row.counts ?? [] },
        bucketErrors: row.has_errors ? (row.errors ?? []) : null,
      },
    ];
  });
}
