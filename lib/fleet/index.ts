export { getFleetSummary } from './fleet-summary';
export { getHostDetail } from './host-detail';
export { compareRegions } from './region-compare';
export { renderFleetMetrics, renderRollupMetrics, renderFindingMetrics, PROMETHEUS_CONTENT_TYPE } from './prometheus';
