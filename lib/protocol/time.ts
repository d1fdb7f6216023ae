/** Durations and bucket arithmetic shared by the server, the read API's schemas and the browser. */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** How far ahead of the server's clock a report's ts may be; ingest refuses one further ahead (docs/protocol.md). */
export const MAX_REPORT_FUTURE_MS = 5 * MINUTE_MS;

export function floorTo(ms: number, stepMs: number): number {
  return Math.floor(ms / stepMs) * stepMs;
}

export function ceilTo(ms: number, stepMs: number): number {
  return Math.ceil(ms / stepMs) * stepMs;
}
