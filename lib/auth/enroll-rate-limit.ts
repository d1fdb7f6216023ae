import { HostRateLimiter, type RateLimits } from '../ingest/rate-limit';
import { processSingleton } from '../process-singleton';

/**
 * Enrollment attempts per client address, checked before the key or the body: a fleet rolled out behind one NAT
 * enrolls 60 hosts at once and then one a second (an agent retries a 429 after Retry-After); a key guesser gets no more.
 */
export const ENROLL_RATE: RateLimits = { requestsPerS: 1, requestBurst: 60, reportsPerMin: 0, reportBurst: 0 };

/** 429 with Retry-After once this address has used up its enrollment attempts. */
export function limitEnrollAttempt(address: string, nowMs = Date.now()): void {
  const limiter = processSingleton('enroll-limiter', () => new HostRateLimiter<string>(ENROLL_RATE));
  limiter.takeRequest(address, nowMs, 'too many enrollment attempts from this address');
}
