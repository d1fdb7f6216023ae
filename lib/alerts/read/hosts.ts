import type { Sql } from '../../db/sql';
import type { HostInfo } from '../inputs';

interface HostRow {
  id: number;
  hostname: string;
  region: string;
  labels: Record<string, string> | string;
}

/** Every host (or those of `hostIds`): what selectors match and notifications name. */
export async function readHosts(sql: Sql, hostIds?: readonly number[]): Promise<Map<number, HostInfo>> {
  const rows = hostIds
    ? await sql.query<HostRow>('SELECT id, hostname, region, labels FROM hosts WHERE id = ANY($1::int4[])', [hostIds])
    : await sql.query<HostRow>('SELECT id, hostname, region, labels FROM hosts');
  return new Map(
    rows.map((r) => [r.id, { id: r.id, hostname: r.hostname, region: r.region, labels: typeof r.labels === 'string' ? JSON.parse(r.labels) : r.labels }]),
  );
}
