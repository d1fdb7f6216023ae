import { z } from 'zod';
import { column } from '../db/rows';
import type { FleetParams, FleetSort, SortDirection } from '../protocol/read-api/fleet';

/**
 * The host table's filtering, ordering and paging as one statement: each host's newest sample and open finding
 * counts are computed once, filtered and sorted by PostgreSQL, and only the page's ids leave the database, with
 * the total and the tiles' counts over the whole fleet.
 */

export interface FleetPageSqlContext {
  now: Date;
  staleAfterMs: number;
  lookbackMs: number;
}

interface OrderItem {
  expr: string;
  desc?: boolean;
}

const BY_NAME: OrderItem[] = [{ expr: 'hostname' }, { expr: 'region' }, { expr: 'id' }];

// What each sort orders by before the name; `attention` flips whole, the others keep names A→Z under equal values.
const SORT_ORDER: Record<Exclude<FleetSort, 'p99'>, OrderItem[]> = {
  attention: [{ expr: 'worst_rank' }, { expr: 'fc', desc: true }, { expr: 'fw', desc: true }, { expr: 'fi', desc: true }],
  hostname: [{ expr: 'hostname' }],
  region: [{ expr: 'region' }],
  status: [{ expr: "CASE status WHEN 'stale' THEN 0 WHEN 'never_reported' THEN 1 ELSE 2 END" }],
  steal: [{ expr: 'cpu_steal_pct' }],
  iowait: [{ expr: 'cpu_iowait_pct' }],
  diskQueue: [{ expr: 'disk_queue' }],
  findings: [{ expr: 'fc * 1000000 + fw * 1000 + fi' }],
  lastSeen: [{ expr: 'coalesce(ts, last_seen_at)' }],
};

export function orderBySql(sort: Exclude<FleetSort, 'p99'>, dir: SortDirection): string {
  const flip = (item: OrderItem, reverse: boolean) => `${item.expr} ${(item.desc ?? false) !== reverse ? 'DESC' : 'ASC'} NULLS LAST`;
  const reverse = dir === 'desc';
  const items =
    sort === 'attention'
      ? [...SORT_ORDER.attention, ...BY_NAME].map((item) => flip(item, reverse))
      : [...SORT_ORDER[sort].map((item) => flip(item, reverse)), ...BY_NAME.map((item) => flip(item, false))];
  return items.join(', ');
}

const WORST_RANK = { critical: 0, warning: 1, info: 2 } as const;

/** The statement and its values; `sort: 'p99'` returns every matching id in name order (p99 is ranked in JS). */
export function fleetPageSql(params: FleetParams, sort: { sort: FleetSort; dir: SortDirection }, ctx: FleetPageSqlContext) {
  const values: unknown[] = [];
  const param = (value: unknown, cast: string) => {
    values.push(value);
    return `$${values.length}::${cast}`;
  };
  const nowMs = ctx.now.getTime();
  const from = param(new Date(nowMs - ctx.lookbackMs), 'timestamptz');
  const ahead = param(new Date(nowMs + 5 * 60_000), 'timestamptz');
  const staleBefore = param(new Date(nowMs - ctx.staleAfterMs), 'timestamptz');

  const where: string[] = [];
  const regions = [...(params.regions ?? []), ...(params.region ? [params.region] : [])];
  if (regions.length) where.push(`region = ANY(${param(regions, 'text[]')})`);
  if (params.status?.length) where.push(`status = ANY(${param(params.status, 'text[]')})`);
  if (params.label) where.push(`labels @> ${param(JSON.stringify(params.label), 'jsonb')}`);
  if (params.finding) {
    where.push(
      params.finding === 'any' ? 'worst_rank < 3' : params.finding === 'none' ? 'worst_rank = 3' : `worst_rank = ${WORST_RANK[params.finding]}`,
    );
  }
  const q = params.q?.trim().toLowerCase();
  if (q) {
    const needle = param(q, 'text');
    where.push(`(strpos(lower(hostname), ${needle}) > 0 OR strpos(lower(region), ${needle}) > 0
      OR EXISTS (SELECT 1 FROM jsonb_each_text(labels) e WHERE strpos(lower(e.key || ':' || e.value), ${needle}) > 0))`);
  }

  const diskJoin =
    sort.sort === 'diskQueue'
      ? `LEFT JOIN LATERAL (SELECT (SELECT max(q) FROM unnest(d.queue_depth) q)::float8 AS disk_queue FROM disk_sample_arrays d
           WHERE d.host_id = h.id AND d.ts >= ${from} AND d.ts <= ${ahead} ORDER BY d.ts DESC LIMIT 1) d ON TRUE`
      : '';
  const paged = sort.sort !== 'p99' && params.limit !== undefined;
  const limit = paged ? param(params.limit, 'int') : null;
  const page = paged ? param(params.page ?? 1, 'int') : null;
  const ordered = sort.sort === 'p99' ? orderBySql('hostname', 'asc') : orderBySql(sort.sort, sort.dir);
  // A page past the last is the last page.
  const offset = paged ? `(least(${page}, greatest(1, ceil((SELECT n FROM total)::float8 / ${limit})::int)) - 1) * ${limit}` : '0';

  const text = `
    WITH open_findings AS (
      SELECT host_id, count(*) FILTER (WHERE severity = 'critical')::int AS fc, count(*) FILTER (WHERE severity = 'warning')::int AS fw,
             count(*) FILTER (WHERE severity = 'info')::int AS fi
        FROM findings WHERE state = 'open' AND host_id IS NOT NULL GROUP BY host_id
    ), base AS MATERIALIZED (
      SELECT h.id, h.hostname, h.region, h.labels, h.last_seen_at, l.ts, l.cpu_steal_pct, l.cpu_iowait_pct,
             ${sort.sort === 'diskQueue' ? 'd.disk_queue' : 'NULL::float8 AS disk_queue'},
             coalesce(f.fc, 0) AS fc, coalesce(f.fw, 0) AS fw, coalesce(f.fi, 0) AS fi,
             CASE WHEN f.fc > 0 THEN 0 WHEN f.fw > 0 THEN 1 WHEN f.fi > 0 THEN 2 ELSE 3 END AS worst_rank,
             CASE WHEN greatest(h.last_seen_at, l.ts) IS NULL THEN 'never_reported'
                  WHEN greatest(h.last_seen_at, l.ts) < ${staleBefore} THEN 'stale' ELSE 'ok' END AS status
        FROM hosts h
        LEFT JOIN LATERAL (
          SELECT s.ts, s.cpu_steal_pct, s.cpu_iowait_pct FROM host_samples s
           WHERE s.host_id = h.id AND s.ts >= ${from} AND s.ts <= ${ahead} ORDER BY s.ts DESC LIMIT 1
        ) l ON TRUE
        ${diskJoin}
        LEFT JOIN open_findings f ON f.host_id = h.id
    ), filtered AS (
      SELECT * FROM base ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ), total AS (SELECT count(*)::int AS n FROM filtered)
    SELECT (SELECT n FROM total) AS total,
           -- ARRAY(subquery) keeps the subquery's order, and LIMIT lets the sort keep only the top rows.
           ARRAY(SELECT id FROM filtered ORDER BY ${ordered} LIMIT ${limit ?? 'ALL'} OFFSET ${offset}) AS ids,
           (SELECT coalesce(array_agg(DISTINCT region), '{}') FROM base) AS regions,
           count(*)::int AS hosts,
           count(*) FILTER (WHERE status = 'ok')::int AS reporting,
           count(*) FILTER (WHERE status = 'stale')::int AS stale,
           count(*) FILTER (WHERE status = 'never_reported')::int AS never_reported,
           count(*) FILTER (WHERE worst_rank = 0)::int AS worst_critical,
           count(*) FILTER (WHERE worst_rank = 1)::int AS worst_warning,
           count(*) FILTER (WHERE worst_rank = 2)::int AS worst_info
      FROM base`;
  return { text, values };
}

const count = z.number().int();
export const fleetPageSqlRow = z.object({
  total: count,
  ids: z.array(column.id),
  regions: z.array(z.string()),
  hosts: count,
  reporting: count,
  stale: count,
  never_reported: count,
  worst_critical: count,
  worst_warning: count,
  worst_info: count,
});
