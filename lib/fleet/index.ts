export { getFleetSummary } from './fleet-summary';
export { getFleetPage } from './fleet-page';
export { getFleetSparklines } from './fleet-sparklines';
export { getHostDetail } from './host-detail';
export { compareRegions } from './region-compare';
export { renderFleetMetrics, renderRollupMetrics, renderFindingMetrics, PROMETHEUS_CONTENT_TYPE } from './prometheus';
export { getHostAnnotations } from './host-annotations';
export { getHostInventory } from './host-inventory';
export { getCompareChoices } from './compare-choices';
