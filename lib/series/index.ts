export { startSeriesMaintenance } from './maintenance';
export { rollUp, readWatermarks } from './rollup';
export { applyRetention, partitionEnd } from './retention';
export { getHostSeries } from './host-series';
export { getLatencyQuantiles } from './latency';
export { coverRange, segmentsAt } from './resolution';
export { lateMinutesOf, markLateMinutes, LATE_REPORT_AGE_MS } from './late-minutes';
export { listHostLatencySeries } from './host-latency-series';
export { compareHosts } from './compare-hosts';
