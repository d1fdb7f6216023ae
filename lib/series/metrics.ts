import type { SeriesResolution } from '../protocol/read-api/series';
import type { MetricSource } from './tables';

export { METRIC_SOURCES, type MetricSource } from './tables';

/** SELECT list pieces (key, weighted sum, weight, max) of one segment of a metric. */
export function segmentColumns(source: MetricSource, resolution: SeriesResolution) {
  if (resolution === 'raw') {
    return {
      table: source.raw,
      key: source.key ? `${source.key}::text` : 'NULL::text',
      sum: `sum(${source.column})::float8`,
      weight: `count(${source.column})::float8`,
      max: `max(${source.column})::float8`,
    };
  }
  const c = source.rollupColumn;
  return {
    table: `${source.rollupBase}_${resolution}`,
    key: source.rollupKey ? `${source.rollupKey}::text` : source.key ? `'worst'::text` : 'NULL::text',
    sum: `sum(${c}_avg * samples)::float8`,
    weight: `sum(samples) FILTER (WHERE ${c}_avg IS NOT NULL)::float8`,
    max: `max(${c}_max)::float8`,
  };
}
