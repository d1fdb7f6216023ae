export interface BackoffSettings {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffSettings = { initialMs: 1_000, maxMs: 60_000 };

/** "Full jitter": uniform in [0, min(max, initial·2^(attempt-1))], so a fleet does not retry in lockstep. */
export function backoffDelayMs(attempt: number, settings: BackoffSettings, random: () => number = Math.random): number {
  const ceiling = Math.min(settings.maxMs, settings.initialMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(random() * ceiling);
}

/** Retry-After as delay-seconds or an HTTP date; undefined when absent or unparseable. */
export function parseRetryAfterMs(header: string | null, nowMs: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const dateMs = Date.parse(text);
  return Number.isNaN(dateMs) ? undefined : Math.max(0, dateMs - nowMs);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
