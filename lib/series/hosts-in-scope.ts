import { z } from 'zod';
import { column, queryRows } from '../db/rows';
import type { Sql } from '../db/sql';
import type { CompareScope } from '../protocol/read-api/compare';

const scopeHostRow = z.object({ id: column.id, hostname: z.string(), region: z.string() });
export type ScopeHostRow = z.output<typeof scopeHostRow>;

function scopeWhere(scope: CompareScope): { where: string; params: unknown[] } {
  switch (scope.kind) {
    case 'fleet':
      return { where: 'TRUE', params: [] };
    case 'region':
      return { where: 'h.region = $1', params: [scope.region] };
    case 'labels':
      return { where: 'h.labels @> $1::jsonb', params: [JSON.stringify(scope.labels)] };
    case 'hosts':
      return { where: 'h.id = ANY($1::int4[])', params: [scope.hostIds] };
  }
}

/** The hosts a comparison's scope matches: the fleet, a region, hosts with some labels, or listed hosts. */
export function readHostsInScope(sql: Sql, scope: CompareScope): Promise<ScopeHostRow[]> {
  const { where, params } = scopeWhere(scope);
  return queryRows(sql, 'hosts', scopeHostRow, `SELECT id, hostname, region FROM hosts h WHERE ${where}`, params);
}
