import { quantileAt, quantileCtes } from './quantile-sql';
import { HISTOGRAM_COLUMNS as COLUMNS, MINUTE_QUANTILES, type GaugeRollupSpec, type MinuteQuantile, type RowFilter } from './tables';

export type RollupLevel = '1m' | '1h';

const BIN_ORIGIN = "TIMESTAMPTZ '2000-01-01 00:00:00+00'";

export function binExpr(step: string, column = 'ts'): string {
  return `date_bin(INTERVAL '${step}', ${column}, ${BIN_ORIGIN})`;
}

const STEP: Record<RollupLevel, string> = { '1m': '1 minute', '1h': '1 hour' };

/** Rows with ts in [$1, $2). */
const inRange: RowFilter = (a) => `${a}.ts >= $1 AND ${a}.ts < $2`;

/** Rows in [$1, $2) whose (host, bucket of `step`) is one of the pairs unnest($3 host ids, $4 buckets). */
export function inHostBuckets(step: string): RowFilter {
  return (a) => `${a}.ts >= $1 AND ${a}.ts < $2 AND ${a}.host_id = ANY($3::int[])
    AND (${a}.host_id, ${binExpr(step, `${a}.ts`)}) IN (SELECT * FROM unnest($3::int[], $4::timestamptz[]))`;
}

/** Upsert of one level's buckets from the level below, for the source rows `filter` selects. */
export function gaugeRollupSql(spec: GaugeRollupSpec, level: RollupLevel, filter: RowFilter = inRange): string {
  const target = `${spec.base}_${level}`;
  const counts = Object.entries(spec.counts ?? {});
  const columns = [
    'host_id',
    'ts',
    ...spec.keys,
    'samples',
    ...counts.map(([column]) => column),
    ...spec.gauges.flatMap((g) => [`${g}_avg`, `${g}_max`]),
  ];
  const group = ['host_id', 'bucket', ...spec.keys];
  let select: string[];
  let source: string;
  if (level === '1m') {
    source = spec.rawSource?.(filter) ?? `(SELECT * FROM ${spec.raw} r WHERE ${filter('r')})`;
    select = [
      'count(*)',
      ...counts.map(([, expr]) => `sum(${expr})`),
      ...spec.gauges.flatMap((g) => [`avg(${g})`, `max(${g})`]),
    ];
  } else {
    source = `(SELECT * FROM ${spec.base}_1m r WHERE ${filter('r')})`;
    select = [
      'sum(samples)',
      ...counts.map(([column]) => `sum(${column})`),
      ...spec.gauges.flatMap((g) => [
        `sum(${g}_avg * samples) / nullif(sum(samples) FILTER (WHERE ${g}_avg IS NOT NULL), 0)`,
        `max(${g}_max)`,
      ]),
    ];
  }
  const conflict = ['host_id', 'ts', ...spec.keys];
  const updates = columns.filter((c) => !conflict.includes(c)).map((c) => `${c} = EXCLUDED.${c}`);
  return `INSERT INTO ${target} (${columns.join(', ')})
SELECT host_id, ${binExpr(STEP[level])} AS bucket${spec.keys.map((k) => `, ${k}`).join('')}, ${select.join(', ')}
FROM ${source} s
GROUP BY ${group.join(', ')}
ON CONFLICT (${conflict.join(', ')}) DO UPDATE SET ${updates.join(', ')}`;
}

const HISTOGRAM_COLUMNS = COLUMNS.join(', ');
const REPLACE_HISTOGRAM = COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ');

/**
 * CTEs merging the histograms of `source` (columns `group` + histogram columns) per `group` into `<name>`: counts
 * summed per key, min of min, max of max, sums summed. One GROUP BY over every (group, key) pair: right for a few
 * large groups (a region's hosts); for many small ones see mergePerGroupCtes.
 */
function mergeCtes(name: string, source: string, group: string[]): string {
  const g = group.join(', ');
  return `${name}_summary AS (
  SELECT ${g}, sum(count)::bigint AS count, sum(sum) AS sum, min(min) AS min, max(max) AS max,
         sum(zero_count)::bigint AS zero_count, bool_or(bucket_errors IS NOT NULL) AS has_errors
  FROM ${source} GROUP BY ${g}
), ${name}_per_key AS (
  SELECT ${g}, u.k, sum(u.c)::bigint AS c, max(u.e) AS e
  FROM ${source}, unnest(keys, counts, bucket_errors) AS u(k, c, e) GROUP BY ${g}, u.k
), ${name}_keys AS (
  SELECT ${g}, array_agg(k ORDER BY k) AS keys, array_agg(c ORDER BY k) AS counts, array_agg(e ORDER BY k) AS errors
  FROM ${name}_per_key GROUP BY ${g}
), ${name} AS (
  SELECT ${group.map((column) => `s.${column}`).join(', ')}, s.count, s.sum, s.min, s.max, s.zero_count,
         coalesce(m.keys, '{}') AS keys, coalesce(m.counts, '{}') AS counts,
         CASE WHEN s.has_errors THEN m.errors END AS bucket_errors
  FROM ${name}_summary s LEFT JOIN ${name}_keys m USING (${g})
)`;
}

/**
 * The same merge as mergeCtes, as CTEs `<name>_grouped` and `<name>`, for many groups of a few rows each (a host's
 * reports of a minute, its minutes of an hour): each group's keys and counts are concatenated, then summed per key
 * within the group. One GROUP BY over every (group, key) pair of the range instead builds a hash of every pair, which
 * spills to disk for a large fleet. A group of one row is already merged (ingest accepts only strictly increasing
 * keys), so it skips the per-key step.
 */
function mergePerGroupCtes(name: string, source: string, group: string[]): string {
  return `${name}_grouped AS (
  SELECT ${group.join(', ')}, sum(count)::bigint AS count, sum(sum) AS sum, min(min) AS min, max(max) AS max,
         sum(zero_count)::bigint AS zero_count, count(*) AS rows,
         inferwatch_array_cat_agg(keys) AS all_keys, inferwatch_array_cat_agg(counts) AS all_counts,
         bool_or(bucket_errors IS NOT NULL) AS has_errors,
         inferwatch_array_cat_agg(coalesce(bucket_errors, array_fill(NULL::real, ARRAY[cardinality(keys)]))) AS all_errors
  FROM ${source} GROUP BY ${group.join(', ')}
), ${name} AS (
  SELECT ${group.map((column) => `g.${column}`).join(', ')}, g.count, g.sum, g.min, g.max, g.zero_count,
         coalesce(m.keys, g.all_keys, '{}') AS keys, coalesce(m.counts, g.all_counts, '{}') AS counts,
         CASE WHEN g.has_errors THEN coalesce(m.errors, g.all_errors) END AS bucket_errors
  FROM ${name}_grouped g, LATERAL (
    SELECT array_agg(k ORDER BY k) AS keys, array_agg(c ORDER BY k) AS counts, array_agg(e ORDER BY k) AS errors
    FROM (SELECT u.k, sum(u.c)::bigint AS c, max(u.e) AS e FROM unnest(g.all_keys, g.all_counts, g.all_errors) AS u(k, c, e)
          WHERE g.rows > 1 GROUP BY u.k) per_key
  ) m
)`;
}

/**
 * CTEs that merge the per-host minute histograms of `merged` (host_id, ts, name, tags, histogram columns: every row of
 * each (host, minute) it holds) per series name and over all the host's series, and `insert`, which upserts their
 * quantiles into MINUTE_QUANTILES' table. They ride in the statement that writes those minutes, so no pass re-reads
 * latency_1m, whose partitions have no index on ts alone.
 */
function minuteQuantilesWrite(merged: string): { ctes: string; insert: string } {
  const names = Object.keys(MINUTE_QUANTILES.quantiles) as MinuteQuantile[];
  const values = names.map(quantileAt).join(', ');
  return {
    ctes: `${quantileCtes('named', merged, ['host_id', 'ts', 'name'])},\n${quantileCtes('everything', 'named', ['host_id', 'ts'], true)}`,
    insert: `INSERT INTO ${MINUTE_QUANTILES.table} (host_id, ts, name, ${names.join(', ')})
SELECT host_id, ts, name, ${values} FROM named
UNION ALL
SELECT host_id, ts, '${MINUTE_QUANTILES.allSeries}', ${values} FROM everything
ON CONFLICT (host_id, name, ts) DO UPDATE SET ${names.map((q) => `${q} = EXCLUDED.${q}`).join(', ')}`,
  };
}

/**
 * Per-host histograms of one level merged from the level below (raw → 1m → 1h), for the rows `filter` selects; at
 * 1 m, with each host's quantiles of those minutes.
 */
export function latencyRollupSql(level: RollupLevel, filter: RowFilter = inRange): string {
  const source = level === '1m' ? 'latency_samples' : 'latency_1m';
  const head = `WITH src AS (
  SELECT host_id, ${binExpr(STEP[level], 'x.ts')} AS ts, name, tags, ${HISTOGRAM_COLUMNS}
  FROM ${source} x WHERE ${filter('x')}
), ${mergePerGroupCtes('merged', 'src', ['host_id', 'ts', 'name', 'tags'])}`;
  const write = `INSERT INTO latency_${level} (host_id, ts, name, tags, ${HISTOGRAM_COLUMNS})
SELECT host_id, ts, name, tags, ${HISTOGRAM_COLUMNS} FROM merged
ON CONFLICT (host_id, ts, name, tags) DO UPDATE SET ${REPLACE_HISTOGRAM}`;
  if (level === '1h') return `${head}\n${write}`;
  const quantiles = minuteQuantilesWrite('merged');
  return `${head}, written AS (\n${write}\n), ${quantiles.ctes}\n${quantiles.insert}`;
}

/**
 * Region histograms of one level: 1 m from the hosts' 1 m rows in [$1, $2), 1 h from the region 1 m rows in
 * [$1, $2) — or, with `hostBuckets`, only the (region, hour) pairs holding the (host $3, hour $4) pairs.
 */
export function regionLatencyRollupSql(level: RollupLevel, hostBuckets = false): string {
  const source =
    level === '1m'
      ? `SELECT h.region, x.ts, x.name, x.tags, ${HISTOGRAM_COLUMNS.replace(/(\w+)/g, 'x.$1')}
         FROM latency_1m x JOIN hosts h ON h.id = x.host_id WHERE ${inRange('x')}`
      : `SELECT region, ${binExpr('1 hour', 'x.ts')} AS ts, name, tags, ${HISTOGRAM_COLUMNS}
         FROM latency_region_1m x WHERE ${inRange('x')}${
           hostBuckets
             ? ` AND (x.region, ${binExpr('1 hour', 'x.ts')}) IN
                 (SELECT h.region, d.bucket FROM unnest($3::int[], $4::timestamptz[]) d(host_id, bucket) JOIN hosts h ON h.id = d.host_id)`
             : ''
         }`;
  return `WITH src AS (${source}), ${mergeCtes('merged', 'src', ['region', 'ts', 'name', 'tags'])}
INSERT INTO latency_region_${level} (region, ts, name, tags, ${HISTOGRAM_COLUMNS})
SELECT region, ts, name, tags, ${HISTOGRAM_COLUMNS} FROM merged
ON CONFLICT (region, ts, name, tags) DO UPDATE SET ${REPLACE_HISTOGRAM}`;
}

const LATE_QUANTILES = minuteQuantilesWrite('fresh');

/**
 * Re-rolls the (host $3, minute $4) pairs of late reports into the hosts' 1 m histograms and quantiles and adds the
 * change to their regions' 1 m rows. Raw rows are only ever added, so new ⊇ old per host: region += new − old (and
 * min/max widen), which is exact without re-reading the region's other hosts.
 */
export const LATE_LATENCY_1M_SQL = `WITH src AS (
  SELECT host_id, ${binExpr('1 minute', 'x.ts')} AS ts, name, tags, ${HISTOGRAM_COLUMNS}
  FROM latency_samples x WHERE ${inHostBuckets('1 minute')('x')}
), ${mergePerGroupCtes('fresh', 'src', ['host_id', 'ts', 'name', 'tags'])},
stale AS (SELECT * FROM latency_1m x WHERE ${inHostBuckets('1 minute')('x')}),
written AS (
  INSERT INTO latency_1m (host_id, ts, name, tags, ${HISTOGRAM_COLUMNS})
  SELECT host_id, ts, name, tags, ${HISTOGRAM_COLUMNS} FROM fresh
  ON CONFLICT (host_id, ts, name, tags) DO UPDATE SET ${REPLACE_HISTOGRAM}
), ${LATE_QUANTILES.ctes},
quantiles_written AS (${LATE_QUANTILES.insert}
), change AS (
  SELECT h.region, f.ts, f.name, f.tags, sum(f.count - coalesce(o.count, 0))::bigint AS count,
         sum(f.sum - coalesce(o.sum, 0)) AS sum, min(f.min) AS min, max(f.max) AS max,
         sum(f.zero_count - coalesce(o.zero_count, 0))::bigint AS zero_count
  FROM fresh f JOIN hosts h ON h.id = f.host_id
    LEFT JOIN stale o ON o.host_id = f.host_id AND o.ts = f.ts AND o.name = f.name AND o.tags = f.tags
  GROUP BY 1, 2, 3, 4
), change_per_key AS (
  SELECT region, ts, name, tags, k, sum(c)::bigint AS c, max(e) AS e FROM (
    SELECT h.region, f.ts, f.name, f.tags, u.k, u.c, u.e
    FROM fresh f JOIN hosts h ON h.id = f.host_id, unnest(f.keys, f.counts, f.bucket_errors) u(k, c, e)
    UNION ALL
    SELECT h.region, o.ts, o.name, o.tags, u.k, -u.c, NULL::real FROM stale o JOIN hosts h ON h.id = o.host_id, unnest(o.keys, o.counts) u(k, c)
  ) z GROUP BY 1, 2, 3, 4, 5
), change_keys AS (
  SELECT region, ts, name, tags, array_agg(k ORDER BY k) AS keys, array_agg(c ORDER BY k) AS counts,
         CASE WHEN bool_or(e IS NOT NULL) THEN array_agg(e ORDER BY k) END AS errors
  FROM change_per_key GROUP BY 1, 2, 3, 4
)
INSERT INTO latency_region_1m AS r (region, ts, name, tags, ${HISTOGRAM_COLUMNS})
SELECT c.region, c.ts, c.name, c.tags, c.count, c.sum, c.min, c.max, c.zero_count, coalesce(k.keys, '{}'), coalesce(k.counts, '{}'), k.errors
FROM change c LEFT JOIN change_keys k USING (region, ts, name, tags)
ON CONFLICT (region, ts, name, tags) DO UPDATE SET count = r.count + EXCLUDED.count, sum = r.sum + EXCLUDED.sum,
  min = LEAST(r.min, EXCLUDED.min), max = GREATEST(r.max, EXCLUDED.max), zero_count = r.zero_count + EXCLUDED.zero_count,
  (keys, counts, bucket_errors) = (
    SELECT coalesce(array_agg(k ORDER BY k), '{}'), coalesce(array_agg(c ORDER BY k), '{}'),
           CASE WHEN r.bucket_errors IS NOT NULL OR EXCLUDED.bucket_errors IS NOT NULL THEN array_agg(e ORDER BY k) END
    FROM (SELECT k, sum(c)::bigint AS c, max(e) AS e FROM (
      SELECT * FROM unnest(r.keys, r.counts, r.bucket_errors) UNION ALL SELECT * FROM unnest(EXCLUDED.keys, EXCLUDED.counts, EXCLUDED.bucket_errors)
    ) u(k, c, e) GROUP BY k) m
  )`;
