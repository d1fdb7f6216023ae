import { describe, expect, test } from 'vitest';
import { HostTokenCache } from '../../../lib/auth/host-token-cache';
import { bearerToken, constantTimeEqual, generateToken, hashToken, tokenDisplayPrefix } from '../../../lib/auth/tokens';
import { parseDurationMs } from '../../../lib/auth/enrollment-key-input';

describe('tokens', () => {
  test('are 256 random bits in base64url behind their prefix, never twice the same', () => {
    const a = generateToken('iwh_');
    expect(a).toMatch(/^iwh_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(4), 'base64url')).toHaveLength(32);
    expect(generateToken('iwh_')).not.toBe(a);
  });

  test('are stored as a SHA-256 hex digest and shown by a short prefix', () => {
    expect(hashToken('iwk_x')).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenDisplayPrefix('iwk_abcdefghij')).toBe('iwk_abcdef');
  });

  test('bearerToken reads only a well-formed Bearer header', () => {
    expect(bearerToken('Bearer iwh_abc')).toBe('iwh_abc');
    expect(bearerToken('bearer  iwh_abc ')).toBe('iwh_abc');
    expect(bearerToken('Basic xyz')).toBeNull();
    expect(bearerToken(null)).toBeNull();
  });

  test('constantTimeEqual compares whole strings of any length', () => {
    expect(constantTimeEqual('secret', 'secret')).toBe(true);
    expect(constantTimeEqual('secret', 'secret2')).toBe(false);
  });

  test('durations for --expires', () => {
    expect(parseDurationMs('30d')).toBe(30 * 86_400_000);
    expect(parseDurationMs('12h')).toBe(12 * 3_600_000);
    expect(() => parseDurationMs('soon')).toThrow(/invalid duration/);
  });
});

describe('HostTokenCache', () => {
  test('forgets an entry after its TTL and refuses a TTL above 5 s', () => {
    const cache = new HostTokenCache(1000);
    cache.set('h', { id: 1, region: 'oslo' }, 0);
    expect(cache.get('h', 999)).toEqual({ id: 1, region: 'oslo' });
    expect(cache.get('h', 1000)).toBeUndefined();
    expect(() => new HostTokenCache(5001)).toThrow(/at most 5000/);
  });

  test('forgetHost drops every token of that host at once', () => {
    const cache = new HostTokenCache();
    cache.set('a', { id: 1, region: 'r' }, 0);
    cache.set('b', { id: 2, region: 'r' }, 0);
    cache.forgetHost(1);
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('b', 1)).toBeDefined();
  });
});
