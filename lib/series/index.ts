export { startSeriesMaintenance, runHousekeeping } from './maintenance';
export { rollUp, readWatermarks, readRollupBacklog, type RollupBacklog } from './rollup';
export { applyRetention, partitionEnd } from './retention';
export { retentionFromEnv } from './retention-config';
export { getHostSeries } from './host-series';
export { getLatencyQuantiles } from './latency';
export { coverRange, segmentsAt } from './resolution';
export { lateMinutesOf, markLateMinutes, LATE_REPORT_AGE_MS } from './late-minutes';
