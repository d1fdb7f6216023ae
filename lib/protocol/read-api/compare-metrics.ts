import { SERIES_METRICS } from './series-metrics';

// Without zod, so the compare page can have its choices without the schemas' runtime.
/** Latency quantiles compare per host by the quantile of each minute (or bucket) of its merged histograms. */
export const COMPARE_LATENCY_METRICS = ['latency_p50', 'latency_p95', 'latency_p99'] as const;
export const COMPARE_METRICS = [...SERIES_METRICS, ...COMPARE_LATENCY_METRICS] as const;
export type CompareMetric = (typeof COMPARE_METRICS)[number];
export const isLatencyCompareMetric = (metric: CompareMetric): metric is (typeof COMPARE_LATENCY_METRICS)[number] =>
  (COMPARE_LATENCY_METRICS as readonly string[]).includes(metric);

export const COMPARE_RANKS = ['avg', 'max'] as const;
export const DEFAULT_COMPARE_LIMIT = 20;
export const MAX_COMPARE_LIMIT = 50;
