/**
 * One read for the collectors of one scrape: prom-client calls every metric's `collect()` at once, so gauges fed by
 * the same query await the one read in flight instead of each running it; the next scrape reads afresh.
 */
export function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | null = null;
  return () => {
    inFlight ??= read().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
}
