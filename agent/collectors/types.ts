export interface WatchedProcess {
  /** The name the operator watches it by (--watch-process NAME, or "pid:N" for --watch-pid). */
  name: string;
  pid: number;
}

export interface CollectorContext {
  procRoot: string;
  sysRoot: string;
  /** Monotonic clock of this collection, ms. Rates divide counter deltas by the real elapsed time. */
  nowMs: number;
  /** Watched processes resolved for this interval (resolved once per interval, before the collectors run). */
  watched: readonly WatchedProcess[];
}

/**
 * One source of data; its name, schedule and place in the report are in its registration (registration.ts).
 * Collectors that compute rates keep the previous reading in their own closure.
 */
export interface Collector<T> {
  collect(ctx: CollectorContext): Promise<T>;
}
