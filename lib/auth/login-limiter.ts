import { RateLimitedError } from '../errors';
import { processSingleton } from '../process-singleton';

/**
 * Failed sign-ins allowed per email and per client address in a sliding window: enough for a person mistyping, far
 * too few for guessing. Successes do not count. One process's memory: behind several replicas each holds its own.
 */
export class LoginLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxFailures = 5,
    private readonly windowMs = 5 * 60_000,
    private readonly clock: () => number = Date.now,
  ) {}

  private recent(key: string): number[] {
    const since = this.clock() - this.windowMs;
    const kept = (this.failures.get(key) ?? []).filter((t) => t > since);
    if (kept.length) this.failures.set(key, kept);
    else this.failures.delete(key);
    return kept;
  }

  /** 429 while either the email or the address has used up its failures. */
  check(email: string, address: string): void {
    for (const key of [`email:${email}`, `ip:${address}`]) {
      const recent = this.recent(key);
      if (recent.length >= this.maxFailures) {
        throw new RateLimitedError((recent[0]! + this.windowMs - this.clock()) / 1000, 'too many failed sign-ins; try again later');
      }
    }
  }

  fail(email: string, address: string): void {
    for (const key of [`email:${email}`, `ip:${address}`]) this.failures.set(key, [...this.recent(key), this.clock()]);
  }
}

/** This process's limiter. */
export function processLoginLimiter(): LoginLimiter {
  return processSingleton('login-limiter', () => new LoginLimiter());
}
