export { getFleetSummary, staleAfterMsFromEnv, DEFAULT_STALE_AFTER_MS } from './fleet-summary';
export { getHostDetail } from './host-detail';
export { compareRegions } from './region-compare';
export { renderFleetMetrics, renderRollupMetrics, renderFindingMetrics, PROMETHEUS_CONTENT_TYPE } from './prometheus';
