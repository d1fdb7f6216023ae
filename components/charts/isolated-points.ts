import type { SeriesKey, TimeRow } from './time-chart-config';

const hasValue = (row: TimeRow | undefined, key: SeriesKey) => typeof row?.[key] === 'number';

/**
 * The rows where `key` has a value and neither neighbour does. A line needs two points: such a value (one batch of
 * requests in a range of gaps) would be drawn as nothing at all, so the chart marks it with a dot.
 */
export function isolatedRows(rows: readonly TimeRow[], key: SeriesKey): Set<number> {
  const isolated = new Set<number>();
  rows.forEach((row, i) => {
    if (hasValue(row, key) && !hasValue(rows[i - 1], key) && !hasValue(rows[i + 1], key)) isolated.add(i);
  });
  return isolated;
}
