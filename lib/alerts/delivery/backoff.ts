export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  /** An event notification is given up after this many attempts, or once this old. */
  maxAttempts: number;
  maxAgeMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1_000, maxMs: 5 * 60_000, maxAttempts: 25, maxAgeMs: 24 * 3_600_000 };

/**
 * The wait before attempt `attempts + 1`: base × 2^(attempts − 1), capped, with "equal jitter" (half fixed, half
 * random) so receivers that come back are not hit by every sender at once, yet the wait never collapses to zero.
 */
export function backoffDelayMs(attempts: number, policy: Pick<BackoffPolicy, 'baseMs' | 'maxMs'>, random: () => number): number {
  const exponential = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(exponential / 2 + (exponential / 2) * random());
}

/** When to try again, or null to give up (sync rows never give up: the next re-send replaces them anyway). */
export function nextAttemptAt(
  delivery: { kind: 'event' | 'sync'; attempts: number; createdAtMs: number },
  nowMs: number,
  policy: BackoffPolicy,
  random: () => number,
): number | null {
  if (delivery.kind === 'event' && (delivery.attempts >= policy.maxAttempts || nowMs - delivery.createdAtMs >= policy.maxAgeMs)) return null;
  return nowMs + backoffDelayMs(delivery.attempts, policy, random);
}

/** Failures a retry cannot fix: the receiver refused this request itself (408 and 429 are worth retrying). */
export function isPermanentStatus(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}
