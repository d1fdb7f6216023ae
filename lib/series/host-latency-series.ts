import { z } from 'zod';
import type { Database } from '../db';
import { queryRows } from '../db/rows';
import { NotFoundError } from '../errors';
import { hostExists } from '../hosts/store';
import type { HostLatencySeriesParams, HostLatencySeriesResponse } from '../protocol/read-api/host';
import type { SeriesResolution } from '../protocol/read-api/series';
import { coverRange } from './resolution';
import { readWatermarks } from './rollup';

const LATENCY_TABLE: Record<SeriesResolution, string> = { raw: 'latency_samples', '1m': 'latency_1m', '1h': 'latency_1h' };
const MAX_NAMES = 200;

const seriesCountRow = z.object({ name: z.string(), count: z.number() });

/** The latency series a host reported in [from, to) and their request counts, from the cheapest cover of the range. */
export async function listHostLatencySeries(
  db: Pick<Database, 'sql'>,
  query: HostLatencySeriesParams & { hostId: number },
): Promise<HostLatencySeriesResponse> {
  const { sql } = db;
  if (!(await hostExists(sql, query.hostId))) throw new NotFoundError(`host ${query.hostId} not found`);
  const segments = coverRange(query.from.getTime(), query.to.getTime(), await readWatermarks(sql));
  const params: unknown[] = [query.hostId];
  const parts = segments.map((segment) => {
    params.push(new Date(segment.fromMs), new Date(segment.toMs));
    return `SELECT name, count FROM ${LATENCY_TABLE[segment.resolution]}
      WHERE host_id = $1 AND ts >= $${params.length - 1} AND ts < $${params.length}`;
  });
  const rows = parts.length
    ? await queryRows(
        sql,
        'latency_samples',
        seriesCountRow,
        `SELECT name, sum(count)::float8 AS count FROM (${parts.join('\nUNION ALL\n')}) u
          GROUP BY name ORDER BY count DESC, name LIMIT ${MAX_NAMES}`,
        params,
      )
    : [];
  return {
    hostId: query.hostId,
    from: query.from.toISOString(),
    to: query.to.toISOString(),
    series: rows.map((r) => ({ name: r.name, count: r.count })),
  };
}
