import { HostRateLimiter, type RateLimits } from '../ingest/rate-limit';

/**
 * Enrollment attempts per client address, checked before the key or the body: a fleet rolled out behind one NAT
 * enrolls 60 hosts at once and then one a second (an agent retries a 429 after Retry-After); a key guesser gets no more.
 */
export const ENROLL_RATE: RateLimits = { requestsPerS: 1, requestBurst: 60, reportsPerMin: 0, reportBurst: 0 };

// On globalThis: Next bundles its own copy of lib beside the custom server's, and both must count together.
const holder = globalThis as typeof globalThis & { __inferwatchEnrollLimiter?: HostRateLimiter<string> };

/** 429 with Retry-After once this address has used up its enrollment attempts. */
export function limitEnrollAttempt(address: string, nowMs = Date.now()): void {
  holder.__inferwatchEnrollLimiter ??= new HostRateLimiter<string>(ENROLL_RATE);
  holder.__inferwatchEnrollLimiter.takeRequest(address, nowMs, 'too many enrollment attempts from this address');
}
