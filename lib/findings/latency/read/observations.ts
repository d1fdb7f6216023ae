import { z } from 'zod';
import { column, queryRows } from '../../../db/rows';
import type { Sql } from '../../../db/sql';
import { METRIC_SOURCES } from '../../../series/metrics';
import type { GaugeObservation, InventoryObservation } from '../facts';
import { readInventoryChanges } from './inventory-changes';
import { CAUSE_GAUGES, type CauseGauge } from '../method';

export interface ObservationRanges {
  /** The rolled minutes judged: gauges after, per minute. */
  windowFromMs: number;
  windowToMs: number;
  /** The baseline's whole hours: gauges before. */
  baselineFromMs: number;
  baselineToMs: number;
  /** Inventory changes from here to the window's end (the window and a lead-up as long). */
  inventoryFromMs: number;
}

export interface HostObservations {
  gauges: GaugeObservation[];
  inventory: InventoryObservation[];
}

/** A rollup row: its bucket start (epoch ms), its key, and the cause gauges' means, named by column. */
const gaugeRow = z.object({ host_id: column.id, ts: z.number(), key: z.string().nullable() }).catchall(z.number().nullable());
type GaugeRow = z.output<typeof gaugeRow>;

/** The cause gauges by the rollup they are kept in, with the column and key there. */
function byRollup(): Map<string, { gauge: CauseGauge; column: string; key: string | null }[]> {
  const groups = new Map<string, { gauge: CauseGauge; column: string; key: string | null }[]>();
  for (const gauge of CAUSE_GAUGES) {
    const source = METRIC_SOURCES[gauge.metric];
    const list = groups.get(source.rollupBase) ?? [];
    list.push({ gauge, column: `${source.rollupColumn}_avg`, key: source.rollupKey });
    groups.set(source.rollupBase, list);
  }
  return groups;
}

/**
 * The gauges of "latency explained" for a few hosts at once, from the 1-minute rollups over the window and the
 * 1-hour rollups over the baseline (two statements per rollup table), and their inventory changes: the same
 * comparison explainLatency makes through the read API, for every host the findings rule may judge regressed.
 */
export async function readHostObservations(sql: Sql, hostIds: readonly number[], ranges: ObservationRanges): Promise<Map<number, HostObservations>> {
  const out = new Map<number, HostObservations>(hostIds.map((id) => [id, { gauges: [], inventory: [] }]));
  if (hostIds.length === 0) return out;
  const read = (base: string, level: '1m' | '1h', columns: { column: string; key: string | null }[], fromMs: number, toMs: number) =>
    queryRows(
      sql,
      `${base}_${level}`,
      gaugeRow,
      `SELECT host_id, (extract(epoch FROM ts) * 1000)::float8 AS ts, ${columns[0]!.key ?? 'NULL'}::text AS key, ${columns.map((c) => `${c.column}::float8 AS ${c.column}`).join(', ')}
         FROM ${base}_${level} WHERE host_id = ANY($1::int4[]) AND ts >= $2 AND ts < $3`,
      [hostIds, new Date(fromMs), new Date(toMs)],
    );
  const groups = [...byRollup()];
  const [inventory, ...tables] = await Promise.all([
    readInventoryChanges(sql, hostIds, new Date(ranges.inventoryFromMs), new Date(ranges.windowToMs)),
    ...groups.map(([base, columns]) =>
      Promise.all([read(base, '1h', columns, ranges.baselineFromMs, ranges.baselineToMs), read(base, '1m', columns, ranges.windowFromMs, ranges.windowToMs)]),
    ),
  ]);
  groups.forEach(([, columns], i) => {
    const [hours, minutes] = tables[i]!;
    const before = bySeries(hours);
    for (const [seriesKey, rows] of bySeries(minutes)) {
      const [hostId, key] = splitKey(seriesKey);
      for (const { gauge, column } of columns) {
        const after = meanOf(rows, column);
        if (!after) continue;
        const baseline = meanOf(before.get(seriesKey) ?? [], column);
        out.get(hostId)!.gauges.push({ gauge, key, before: baseline?.mean ?? null, after: after.mean, perMinute: after.points });
      }
    }
  });
  for (const [hostId, changes] of inventory) out.get(hostId)!.inventory = changes;
  return out;
}

const keyOf = (hostId: number, key: string | null) => `${hostId}\u0000${key ?? ''}\u0000${key === null ? 0 : 1}`;

function splitKey(seriesKey: string): [number, string | null] {
  const [host, key, keyed] = seriesKey.split('\u0000');
  return [Number(host), keyed === '1' ? key! : null];
}

/** A rollup's rows by (host, key). */
function bySeries(rows: readonly GaugeRow[]): Map<string, GaugeRow[]> {
  const out = new Map<string, GaugeRow[]>();
  for (const row of rows) {
    const k = keyOf(row.host_id, row.key);
    const list = out.get(k);
    if (list) list.push(row);
    else out.set(k, [row]);
  }
  return out;
}

/** The mean of one column's bucket averages, and the averages by bucket start; null when it has none. */
function meanOf(rows: readonly GaugeRow[], column: string): { mean: number; points: Map<number, number> } | null {
  const points = new Map<number, number>();
  let sum = 0;
  for (const row of rows) {
    const value = row[column] ?? null;
    if (value === null) continue;
    points.set(row.ts, value);
    sum += value;
  }
  return points.size ? { mean: sum / points.size, points } : null;
}
