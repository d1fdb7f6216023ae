export { startSeriesMaintenance, runHousekeeping, type SeriesMaintenance, type SeriesMaintenanceOptions } from './maintenance';
export { rollUp, readWatermarks, readRollupBacklog, type RollupBacklog, type RollUpOptions, type RollUpResult } from './rollup';
export { applyRetention, partitionEnd } from './retention';
export { retentionFromEnv, DEFAULT_RETENTION_DAYS, type RetentionDays } from './retention-config';
export { getHostSeries } from './host-series';
export { getLatencyQuantiles, quantilesOf } from './latency';
export { chooseResolution, coverRange, segmentsAt } from './resolution';
export { lateMinutesOf, markLateMinutes, LATE_REPORT_AGE_MS, type LateMinute } from './late-minutes';
