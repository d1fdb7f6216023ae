import type { GaugeRollupSpec } from './rollup-specs';

export type RollupLevel = '1m' | '1h';

const BIN_ORIGIN = "TIMESTAMPTZ '2000-01-01 00:00:00+00'";

export function binExpr(step: string, column = 'ts'): string {
  return `date_bin(INTERVAL '${step}', ${column}, ${BIN_ORIGIN})`;
}

const STEP: Record<RollupLevel, string> = { '1m': '1 minute', '1h': '1 hour' };

/** Upsert of one level's buckets from the level below, for rows with ts in [$1, $2). */
export function gaugeRollupSql(spec: GaugeRollupSpec, level: RollupLevel): string {
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
    source = spec.rawSource ?? `(SELECT * FROM ${spec.raw} WHERE ts >= $1 AND ts < $2)`;
    select = [
      'count(*)',
      ...counts.map(([, expr]) => `sum(${expr})`),
      ...spec.gauges.flatMap((g) => [`avg(${g})`, `max(${g})`]),
    ];
  } else {
    source = `(SELECT * FROM ${spec.base}_1m WHERE ts >= $1 AND ts < $2)`;
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

/** Merges histograms into one level's buckets: counts summed per key, min of min, max of max, sums summed. */
export function latencyRollupSql(level: RollupLevel): string {
  const source = level === '1m' ? 'latency_samples' : 'latency_1m';
  return `WITH src AS (
  SELECT host_id, ${binExpr(STEP[level])} AS bucket, name, tags, count, sum, min, max, zero_count, keys, counts
  FROM ${source} WHERE ts >= $1 AND ts < $2
), summary AS (
  SELECT host_id, bucket, name, tags, sum(count)::bigint AS count, sum(sum) AS sum, min(min) AS min, max(max) AS max,
         sum(zero_count)::bigint AS zero_count
  FROM src GROUP BY host_id, bucket, name, tags
), per_key AS (
  SELECT host_id, bucket, name, tags, u.k, sum(u.c)::bigint AS c
  FROM src, unnest(src.keys, src.counts) AS u(k, c) GROUP BY host_id, bucket, name, tags, u.k
), merged AS (
  SELECT host_id, bucket, name, tags, array_agg(k ORDER BY k) AS keys, array_agg(c ORDER BY k) AS counts
  FROM per_key GROUP BY host_id, bucket, name, tags
)
INSERT INTO latency_${level} (host_id, ts, name, tags, count, sum, min, max, zero_count, keys, counts)
SELECT s.host_id, s.bucket, s.name, s.tags, s.count, s.sum, s.min, s.max, s.zero_count,
       coalesce(m.keys, '{}'), coalesce(m.counts, '{}')
FROM summary s LEFT JOIN merged m USING (host_id, bucket, name, tags)
ON CONFLICT (host_id, ts, name, tags) DO UPDATE SET count = EXCLUDED.count, sum = EXCLUDED.sum, min = EXCLUDED.min,
  max = EXCLUDED.max, zero_count = EXCLUDED.zero_count, keys = EXCLUDED.keys, counts = EXCLUDED.counts`;
}
