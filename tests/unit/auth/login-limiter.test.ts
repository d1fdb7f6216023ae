import { describe, expect, test } from 'vitest';
import { ACCOUNT_BACKOFF, ADDRESS_BACKOFF, LoginLimiter, backoffDelayMs } from '@/lib/auth/login-limiter';

const OFFICE = '203.0.113.10';

function limiterAt(start = 1_000_000) {
  const clock = { now: start };
  return { clock, limiter: new LoginLimiter(() => clock.now) };
}

/** Attempts that fail (admitted, never succeeded), one per `everyMs`; returns the verdicts. */
function failMany(limiter: LoginLimiter, clock: { now: number }, email: string, address: string, count: number, everyMs = 1_000) {
  const verdicts = [];
  for (let i = 0; i < count; i++) {
    verdicts.push(limiter.admit(email, address));
    clock.now += everyMs;
  }
  return verdicts;
}

describe('backoffDelayMs', () => {
  test('no wait for the free failures, then 30 s doubling per failure, capped at 15 minutes', () => {
    const waits = Array.from({ length: 12 }, (_, i) => backoffDelayMs(ACCOUNT_BACKOFF, i + 1) / 1000);
    expect(waits).toEqual([0, 0, 0, 0, 30, 60, 120, 240, 480, 900, 900, 900]);
  });

  test('an address gets twenty failing accounts before its first wait', () => {
    expect(backoffDelayMs(ADDRESS_BACKOFF, 19)).toBe(0);
    expect(backoffDelayMs(ADDRESS_BACKOFF, 20)).toBe(30_000);
    expect(backoffDelayMs(ADDRESS_BACKOFF, 22)).toBe(120_000);
  });
});

describe('LoginLimiter', () => {
  test('five failed tries of an account, then it waits 30 s after the fifth, counted down by the clock', () => {
    const { clock, limiter } = limiterAt();
    expect(failMany(limiter, clock, 'a@x.io', OFFICE, 5, 2_000).every((v) => v.admitted)).toBe(true);
    // The fifth try was 2 s ago: 28 s left.
    expect(limiter.admit('a@x.io', OFFICE)).toEqual({ admitted: false, scope: 'account', retryAfterMs: 28_000, firstRefusal: true });
    clock.now += 27_999;
    expect(limiter.admit('a@x.io', OFFICE)).toEqual({ admitted: false, scope: 'account', retryAfterMs: 1, firstRefusal: false });
    clock.now += 1;
    expect(limiter.admit('a@x.io', OFFICE).admitted).toBe(true);
    // The sixth failure doubles the wait: 60 s from it.
    clock.now += 10_000;
    expect(limiter.admit('a@x.io', OFFICE)).toMatchObject({ admitted: false, retryAfterMs: 50_000, firstRefusal: true });
  });

  test('the wait follows the account to any address, and refusals during it do not make it longer', () => {
    const { clock, limiter } = limiterAt();
    failMany(limiter, clock, 'a@x.io', '198.51.100.1', 5, 0);
    for (let i = 0; i < 100; i++) expect(limiter.admit('a@x.io', `198.51.100.${i + 2}`).admitted).toBe(false);
    expect(limiter.waits('a@x.io', '198.51.100.1').accountMs).toBe(30_000);
  });

  test('a storm of wrong passwords for one account from an address never stops another account there', () => {
    const { clock, limiter } = limiterAt();
    // Two hours of a guess a second against a@: only the admitted ones count, the rest are refused.
    for (let s = 0; s < 7_200; s++) {
      limiter.admit('a@x.io', OFFICE);
      clock.now += 1_000;
    }
    expect(limiter.waits('a@x.io', OFFICE).accountMs).toBeGreaterThan(0);
    expect(limiter.waits('b@x.io', OFFICE)).toEqual({ accountMs: 0, addressMs: 0 });
    expect(limiter.admit('b@x.io', OFFICE).admitted).toBe(true);
  });

  test('colleagues who mistype and then sign in never add up against their shared address', () => {
    const { clock, limiter } = limiterAt();
    for (let person = 0; person < 200; person++) {
      const email = `p${person}@x.io`;
      failMany(limiter, clock, email, OFFICE, 2, 5_000);
      expect(limiter.admit(email, OFFICE).admitted).toBe(true);
      limiter.succeeded(email, OFFICE);
    }
    expect(limiter.waits('new@x.io', OFFICE)).toEqual({ accountMs: 0, addressMs: 0 });
  });

  test('an address that fails for twenty accounts without a sign-in waits 30 s, then 60 s for the next', () => {
    const { clock, limiter } = limiterAt();
    for (let i = 0; i < 20; i++) expect(limiter.admit(`guess${i}@x.io`, OFFICE).admitted).toBe(true);
    clock.now += 1_000;
    expect(limiter.admit('right@x.io', OFFICE)).toEqual({ admitted: false, scope: 'address', retryAfterMs: 29_000, firstRefusal: true });
    // Another address is not affected.
    expect(limiter.admit('right@x.io', '192.0.2.99').admitted).toBe(true);
    clock.now += 29_000;
    expect(limiter.admit('guess20@x.io', OFFICE).admitted).toBe(true);
    expect(limiter.waits('x@x.io', OFFICE).addressMs).toBe(60_000);
  });

  test('a success clears the account’s count, so the owner who finally types it right starts from nothing', () => {
    const { clock, limiter } = limiterAt();
    failMany(limiter, clock, 'a@x.io', OFFICE, 4);
    expect(limiter.admit('a@x.io', OFFICE).admitted).toBe(true);
    limiter.succeeded('a@x.io', OFFICE);
    expect(failMany(limiter, clock, 'a@x.io', OFFICE, 5).every((v) => v.admitted)).toBe(true);
  });

  test('the count outlives the wait until an hour without a failure forgets the account and the address', () => {
    const { clock, limiter } = limiterAt();
    failMany(limiter, clock, 'a@x.io', OFFICE, 10, 0);
    for (let i = 0; i < 20; i++) limiter.admit(`g${i}@x.io`, '192.0.2.5');
    clock.now += 59 * 60_000;
    // Both waits are over, but one more failure of either continues where its count was.
    expect(limiter.waits('a@x.io', OFFICE)).toEqual({ accountMs: 0, addressMs: 0 });
    expect(limiter.admit('a@x.io', OFFICE).admitted).toBe(true);
    // Five were admitted (the other five refused): the sixth failure waits 60 s.
    expect(limiter.waits('a@x.io', OFFICE).accountMs).toBe(60_000);
    expect(limiter.admit('g20@x.io', '192.0.2.5').admitted).toBe(true);
    expect(limiter.waits('z@x.io', '192.0.2.5').addressMs).toBe(60_000);
    clock.now += 60 * 60_000;
    expect(limiter.waits('a@x.io', OFFICE)).toEqual({ accountMs: 0, addressMs: 0 });
    expect(failMany(limiter, clock, 'a@x.io', OFFICE, 5, 0).every((v) => v.admitted)).toBe(true);
    expect(limiter.admit('new@x.io', '192.0.2.5').admitted).toBe(true);
    expect(limiter.waits('z@x.io', '192.0.2.5').addressMs).toBe(0);
  });
});
