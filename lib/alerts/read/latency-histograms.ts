import type { Sql } from '../../db/sql';
import { withoutJit } from '../../db/without-jit';
import { mergeHistograms } from '../../series/merge-histograms';
import { coverRange } from '../../series/resolution';
import type { LatencyHistogramRow } from '../inputs';

/** The merged histogram of each region and latency series over each window ending at `to`. */
export async function readLatencyHistograms(
  sql: Sql,
  windowsMs: readonly number[],
  options: { to: Date; rollupMarks: { '1m'?: Date; '1h'?: Date } },
): Promise<Map<number, LatencyHistogramRow[]>> {
  const out = new Map<number, LatencyHistogramRow[]>();
  const toMs = options.to.getTime();
  for (const windowMs of new Set(windowsMs)) {
    const rows = await withoutJit(sql, (tx) => mergeHistograms(tx, {
      segments: coverRange(toMs - windowMs, toMs, options.rollupMarks),
      groups: ['h.region', 'x.name'],
      where: 'TRUE',
      params: [],
      byRegion: true,
    }));
    out.set(windowMs, rows.map((row) => ({ region: String(row.groups[0]), service: String(row.groups[1]), wire: row.wire })));
  }
  return out;
}
