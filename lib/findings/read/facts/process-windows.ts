import { z } from 'zod';
import { column, queryRows } from '../../../db/rows';
import type { Sql } from '../../../db/sql';
import { hostSource, windowParams } from './host-filter';

const processWindowRow = z.object({ host_id: column.id, name: z.string(), pid: z.number().int(), threads: z.number().int(), cpu: z.number() });
export type ProcessWindowRow = z.output<typeof processWindowRow>;

/** Each host's watched processes over [from, to]: most threads seen and mean CPU. */
export function readProcessWindows(sql: Sql, from: Date, to: Date, hostIds?: readonly number[]): Promise<ProcessWindowRow[]> {
  return queryRows(
    sql,
    'process_samples',
    processWindowRow,
    `SELECT h.id AS host_id, p.* FROM ${hostSource(hostIds, 3)} CROSS JOIN LATERAL (
       SELECT name, pid, max(threads)::int AS threads, avg(cpu_cores)::float8 AS cpu
       FROM process_samples WHERE host_id = h.id AND ts > $1 AND ts <= $2
       GROUP BY name, pid) p`,
    windowParams(from, to, hostIds),
  );
}
