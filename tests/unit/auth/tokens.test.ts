import { describe, expect, test } from 'vitest';
import { HostTokenCache } from '../../../lib/auth/host-token-cache';
import { RevocationWatch } from '../../../lib/auth/revocation-watch';
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
  test('keeps a lookup for its TTL (10 min by default), then forgets it', () => {
    const cache = new HostTokenCache(1000);
    cache.set('h', { id: 1, region: 'oslo' }, 0);
    expect(cache.get('h', 999)).toEqual({ id: 1, region: 'oslo' });
    expect(cache.get('h', 1000)).toBeUndefined();
    expect(new HostTokenCache().ttlMs).toBe(600_000);
  });

  test('when full, drops the least recently used lookup', () => {
    const cache = new HostTokenCache(60_000, 2);
    cache.set('a', { id: 1, region: 'r' }, 0);
    cache.set('b', { id: 2, region: 'r' }, 0);
    cache.get('a', 1);
    cache.set('c', { id: 3, region: 'r' }, 2);
    expect(cache.get('b', 3)).toBeUndefined();
    expect(cache.get('a', 3)).toBeDefined();
    expect(cache.get('c', 3)).toBeDefined();
    expect(cache.size).toBe(2);
  });

  test("forgetHost drops that host's token at once, and a new token replaces the old one", () => {
    const cache = new HostTokenCache();
    cache.set('a', { id: 1, region: 'r' }, 0);
    cache.set('b', { id: 2, region: 'r' }, 0);
    cache.forgetHost(1);
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('b', 1)).toBeDefined();
    cache.set('b2', { id: 2, region: 'r' }, 1);
    expect(cache.get('b', 2)).toBeUndefined();
  });

  test('a lookup that started before a forget or clear is not cached', () => {
    const cache = new HostTokenCache();
    const before = cache.generation;
    cache.forgetHost(1);
    cache.set('a', { id: 1, region: 'r' }, 0, before);
    expect(cache.get('a', 1)).toBeUndefined();
    const beforeClear = cache.generation;
    cache.clear();
    cache.set('a', { id: 1, region: 'r' }, 0, beforeClear);
    expect(cache.size).toBe(0);
  });
});

describe('RevocationWatch', () => {
  function watchWith(versions: number[]) {
    let nowMs = 0;
    const reads: number[] = [];
    let changes = 0;
    const watch = new RevocationWatch(async () => {
      reads.push(nowMs);
      return versions[Math.min(reads.length - 1, versions.length - 1)]!;
    }, () => changes++, 1000, () => nowMs);
    return { watch, reads, changes: () => changes, at: (ms: number) => (nowMs = ms) };
  }

  test('waits for the first read, answers at once while fresh, re-reads in the background from half the bound', async () => {
    const w = watchWith([5, 5]);
    const first = w.watch.whenFresh();
    expect(first).toBeInstanceOf(Promise);
    await first;
    w.at(400);
    expect(w.watch.whenFresh()).toBeUndefined();
    expect(w.reads).toEqual([0]);
    w.at(600);
    expect(w.watch.whenFresh()).toBeUndefined();
    expect(w.reads).toEqual([0, 600]);
    expect(w.changes()).toBe(0);
  });

  test('after the bound without a read it waits, and a new version clears before it resolves', async () => {
    const w = watchWith([5, 6]);
    await w.watch.whenFresh();
    w.at(1000);
    const waiting = w.watch.whenFresh();
    expect(waiting).toBeInstanceOf(Promise);
    await waiting;
    expect(w.changes()).toBe(1);
  });
});
