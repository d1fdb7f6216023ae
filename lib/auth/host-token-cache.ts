import { MINUTE_MS } from '../protocol/time';

export interface AuthenticatedHost {
  id: number;
  region: string;
}

interface Entry {
  host: AuthenticatedHost;
  expiresAtMs: number;
}

/** Agents report every 10 s: a lookup cached for less would miss on every request and cost a query each time. */
const TOKEN_CACHE_TTL_MS = 10 * MINUTE_MS;
const MAX_ENTRIES = 200_000;

/**
 * Positive token lookups (token hash → host), least recently used first out. `generation` moves on every
 * forget/clear, so a lookup that started before a revocation is not cached (pass the generation read before it).
 */
export class HostTokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly hashByHost = new Map<number, string>();
  generation = 0;

  constructor(readonly ttlMs = TOKEN_CACHE_TTL_MS, readonly maxEntries = MAX_ENTRIES) {}

  get size(): number {
    return this.entries.size;
  }

  get(tokenHash: string, nowMs: number): AuthenticatedHost | undefined {
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    this.entries.delete(tokenHash);
    if (entry.expiresAtMs <= nowMs) {
      this.hashByHost.delete(entry.host.id);
      return undefined;
    }
    this.entries.set(tokenHash, entry);
    return entry.host;
  }

  set(tokenHash: string, host: AuthenticatedHost, nowMs: number, generation = this.generation): void {
    if (generation !== this.generation) return;
    const previous = this.hashByHost.get(host.id);
    if (previous !== undefined) this.entries.delete(previous);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.hashByHost.delete(this.entries.get(oldest)!.host.id);
      this.entries.delete(oldest);
    }
    this.entries.set(tokenHash, { host, expiresAtMs: nowMs + this.ttlMs });
    this.hashByHost.set(host.id, tokenHash);
  }

  forgetHost(hostId: number): void {
    this.generation++;
    const hash = this.hashByHost.get(hostId);
    if (hash === undefined) return;
    this.entries.delete(hash);
    this.hashByHost.delete(hostId);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.hashByHost.clear();
  }
}
