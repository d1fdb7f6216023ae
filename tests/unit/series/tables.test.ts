import { describe, expect, test } from 'vitest';
import { SERIES_METRICS } from '../../../lib/protocol/read-api/series';
import { GAUGE_ROLLUPS, METRIC_SOURCES, TABLES, type SeriesTable } from '../../../lib/series/tables';

const tables = Object.values(TABLES) as SeriesTable[];

describe('the series table definitions', () => {
  test('every metric the read API serves is stored in exactly one column', () => {
    const defined = tables.flatMap((t) => t.columns.flatMap((c) => (c.metric ? [c.metric.name] : [])));
    expect([...defined].sort()).toEqual([...SERIES_METRICS].sort());
    expect(Object.keys(METRIC_SOURCES).sort()).toEqual([...SERIES_METRICS].sort());
  });

  test('every metric can be read rolled up: its column is a rolled-up gauge, or its rollup says how it is folded', () => {
    for (const t of tables) {
      for (const c of t.columns.filter((column) => column.metric)) {
        const rolled = c.metric!.rolledUpAs
          ? GAUGE_ROLLUPS.some((r) => r.base === c.metric!.rolledUpAs!.base && r.gauges.includes(c.metric!.rolledUpAs!.name))
          : c.gauge === true && t.rollup?.kind === 'gauges';
        expect(rolled, `${t.name}.${c.name}`).toBe(true);
      }
    }
  });

  test('a table\'s series key is one of its columns, and no column is named twice', () => {
    for (const t of tables) {
      const names = ['host_id', 'ts', ...t.columns.map((c) => c.name)];
      expect(new Set(names).size, t.name).toBe(names.length);
      if (t.key) expect(names, t.name).toContain(t.key);
    }
  });
});
