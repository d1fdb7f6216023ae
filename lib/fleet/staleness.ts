/** A host without a report for this long is stale: three missed 10-second reports (INFERWATCH_STALE_AFTER_MS). */
export const DEFAULT_STALE_AFTER_MS = 30_000;
