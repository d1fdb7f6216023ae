import { z } from 'zod';
import { column, queryRows } from '../../../db/rows';
import type { Sql } from '../../../db/sql';
import { hostSource, windowParams } from './host-filter';

const serverWindowRow = z.object({
  host_id: column.id,
  name: z.string(),
  n: z.number().int(),
  n_pre: z.number().int(),
  n_preempting: z.number().int(),
  pre_avg: z.number().nullable(),
  pre_max: z.number().nullable(),
  kv_avg: z.number().nullable(),
  kv_max: z.number().nullable(),
});
export type ServerWindowRow = z.output<typeof serverWindowRow>;

/** Scraped servers' KV cache and preemptions; only servers that published either (LLM engines) are read. */
export function readServerWindows(sql: Sql, from: Date, to: Date, hostIds?: readonly number[]): Promise<ServerWindowRow[]> {
  return queryRows(
    sql,
    'server_samples',
    serverWindowRow,
    `SELECT h.id AS host_id, s.* FROM ${hostSource(hostIds, 3)} CROSS JOIN LATERAL (
       SELECT name, count(*)::int AS n, count(preemptions_per_min)::int AS n_pre,
         (count(*) FILTER (WHERE preemptions_per_min > 0))::int AS n_preempting,
         avg(preemptions_per_min)::float8 AS pre_avg, max(preemptions_per_min)::float8 AS pre_max,
         avg(kv_cache_pct)::float8 AS kv_avg, max(kv_cache_pct)::float8 AS kv_max
       FROM server_samples WHERE host_id = h.id AND ts > $1 AND ts <= $2 AND ok
       GROUP BY name
       HAVING count(preemptions_per_min) > 0 OR count(kv_cache_pct) > 0) s`,
    windowParams(from, to, hostIds),
  );
}
