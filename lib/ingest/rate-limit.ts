import { RateLimitedError } from '../errors';

/**
 * An agent sends one request per interval (10 s by default) and, after an outage, its backlog in batches. The
 * buckets allow 10× the normal pace with bursts, and drain a backlog at 1,000 reports per minute.
 */
export interface RateLimits {
  requestsPerS: number;
  requestBurst: number;
  reportsPerMin: number;
  reportBurst: number;
}

export const DEFAULT_INGEST_RATE: RateLimits = { requestsPerS: 1, requestBurst: 20, reportsPerMin: 1000, reportBurst: 1000 };

interface Buckets {
  requests: number;
  reports: number;
  updatedMs: number;
}

const IDLE_FORGET_MS = 10 * 60_000;

/**
 * Two token buckets per host (requests and reports), refilled continuously; beyond them a request gets 429. Keyed by
 * host id for ingest, by client address for enrollment (lib/auth/enroll-rate-limit.ts).
 */
export class HostRateLimiter<Key extends number | string = number> {
  private readonly hosts = new Map<Key, Buckets>();
  private lastSweepMs = 0;

  constructor(private readonly limits: RateLimits) {}

  private buckets(hostId: Key, nowMs: number): Buckets {
    let b = this.hosts.get(hostId);
    if (!b) {
      b = { requests: this.limits.requestBurst, reports: this.limits.reportBurst, updatedMs: nowMs };
      this.hosts.set(hostId, b);
      this.sweep(nowMs);
      return b;
    }
    const elapsedS = Math.max(0, nowMs - b.updatedMs) / 1000;
    b.requests = Math.min(this.limits.requestBurst, b.requests + elapsedS * this.limits.requestsPerS);
    b.reports = Math.min(this.limits.reportBurst, b.reports + (elapsedS * this.limits.reportsPerMin) / 60);
    b.updatedMs = nowMs;
    return b;
  }

  takeRequest(hostId: Key, nowMs: number, message?: string): void {
    const b = this.buckets(hostId, nowMs);
    if (b.requests < 1) throw new RateLimitedError((1 - b.requests) / this.limits.requestsPerS, message);
    b.requests -= 1;
  }

  takeReports(hostId: Key, count: number, nowMs: number): void {
    const b = this.buckets(hostId, nowMs);
    if (b.reports < count) {
      const needed = Math.min(count, this.limits.reportBurst) - b.reports;
      throw new RateLimitedError((needed * 60) / this.limits.reportsPerMin, `too many reports for this host (at most ${this.limits.reportsPerMin} per minute)`);
    }
    b.reports -= count;
  }

  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweepMs < IDLE_FORGET_MS) return;
    this.lastSweepMs = nowMs;
    for (const [hostId, b] of this.hosts) if (nowMs - b.updatedMs > IDLE_FORGET_MS) this.hosts.delete(hostId);
  }
}
