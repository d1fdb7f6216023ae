import { MINUTE_QUANTILES, type MinuteQuantile } from './tables';

const QUANTILE_NAMES = Object.keys(MINUTE_QUANTILES.quantiles) as MinuteQuantile[];
const QS = `ARRAY[${Object.values(MINUTE_QUANTILES.quantiles).join(', ')}]::float8[]`;

/** The SQL subscript of a quantile in the `q` arrays quantileCtes computes. */
export const quantileAt = (quantile: MinuteQuantile): string => `q[${QUANTILE_NAMES.indexOf(quantile) + 1}]`;

/**
 * CTEs `<name>_grouped` and `<name>`: the histograms of `source` (columns `group`, count, min, max, zero_count, keys,
 * counts) merged per `group` as the rollups merge them, with `q`, their MINUTE_QUANTILES by the migration's
 * inferwatch_sketch_quantiles (lib/sketch's quantileOfWire in SQL). A group of one row is already merged; with
 * `carriesQuantiles` the source has `q` too, and such a group keeps it (`min(q)` of one row is its array, where
 * array_agg would nest it).
 */
export function quantileCtes(name: string, source: string, group: readonly string[], carriesQuantiles = false): string {
  const quantiles = `inferwatch_sketch_quantiles(g.count, g.zero_count, g.min, g.max, k.keys, k.counts, ${QS})`;
  return `${name}_grouped AS (
  SELECT ${group.join(', ')}, sum(count)::bigint AS count, min(min) AS min, max(max) AS max, sum(zero_count)::bigint AS zero_count,
         count(*) AS rows, inferwatch_array_cat_agg(keys) AS all_keys, inferwatch_array_cat_agg(counts::bigint[]) AS all_counts
         ${carriesQuantiles ? ', min(q) AS only_q' : ''}
  FROM ${source} GROUP BY ${group.join(', ')}
), ${name} AS (
  SELECT ${group.map((column) => `g.${column}`).join(', ')}, g.count, g.min, g.max, g.zero_count, k.keys, k.counts,
         ${carriesQuantiles ? `CASE WHEN g.rows = 1 THEN g.only_q ELSE ${quantiles} END` : quantiles} AS q
  FROM ${name}_grouped g, LATERAL (
    SELECT coalesce(array_agg(u.k ORDER BY u.k), g.all_keys) AS keys, coalesce(array_agg(u.c ORDER BY u.k), g.all_counts) AS counts
    FROM (SELECT p.k, sum(p.c)::bigint AS c FROM unnest(g.all_keys, g.all_counts) AS p(k, c) WHERE g.rows > 1 GROUP BY p.k) u
  ) k
)`;
}
