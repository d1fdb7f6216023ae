import { z } from 'zod';
import type { Database } from '../db';
import { column, queryRows } from '../db/rows';
import type { CompareChoices, CompareChoicesParams } from '../protocol/read-api/compare';
import { DAY_MS } from '../protocol/time';

const LATENCY_NAMES_WINDOW_MS = 7 * DAY_MS;

const regionRow = z.object({ region: z.string() });
const nameRow = z.object({ name: z.string() });
const hostRow = z.object({ id: column.id, hostname: z.string(), region: z.string() });

/** LIKE's wildcards and escape in `text`, escaped: a search for `a_b` finds `a_b`, not `axb`. */
const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The compare page's choices: regions with hosts, latency series names from the region rollups (small: one row per
 * region, series and bucket), and the hosts a search matches.
 */
export async function getCompareChoices(db: Pick<Database, 'sql'>, params: CompareChoicesParams, now = new Date()): Promise<CompareChoices> {
  const { sql } = db;
  const since = new Date(now.getTime() - LATENCY_NAMES_WINDOW_MS);
  const q = params.q ? `%${likeEscape(params.q)}%` : null;
  const [regions, names, hosts] = await Promise.all([
    queryRows(sql, 'hosts', regionRow, 'SELECT DISTINCT region FROM hosts ORDER BY region'),
    queryRows(
      sql,
      'latency_region_1h',
      nameRow,
      `SELECT name FROM latency_region_1h WHERE ts >= $1 UNION SELECT name FROM latency_region_1m WHERE ts >= $2 ORDER BY name`,
      [since, new Date(now.getTime() - DAY_MS)],
    ),
    queryRows(
      sql,
      'hosts',
      hostRow,
      `SELECT id, hostname, region FROM hosts WHERE $1::text IS NULL OR hostname ILIKE $1 OR region ILIKE $1
        ORDER BY hostname, id LIMIT $2`,
      [q, params.limit],
    ),
  ]);
  return { regions: regions.map((r) => r.region), latencyNames: names.map((n) => n.name), hosts };
}
