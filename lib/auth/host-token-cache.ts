export interface AuthenticatedHost {
  id: number;
  region: string;
}

interface Entry {
  host: AuthenticatedHost;
  expiresAtMs: number;
}

/**
 * Token lookups are cached for at most 5 s: a revocation clears this process's entries at once, and other
 * processes (another ingest replica, the Next app next to the custom server) stop accepting the token within the TTL.
 */
export const MAX_TOKEN_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 200_000;

export class HostTokenCache {
  private readonly entries = new Map<string, Entry>();

  constructor(readonly ttlMs = MAX_TOKEN_CACHE_TTL_MS) {
    if (ttlMs > MAX_TOKEN_CACHE_TTL_MS) throw new Error(`token cache TTL must be at most ${MAX_TOKEN_CACHE_TTL_MS} ms`);
  }

  get(tokenHash: string, nowMs: number): AuthenticatedHost | undefined {
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (entry.expiresAtMs <= nowMs) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return entry.host;
  }

  set(tokenHash: string, host: AuthenticatedHost, nowMs: number): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(tokenHash, { host, expiresAtMs: nowMs + this.ttlMs });
  }

  forgetHost(hostId: number): void {
    for (const [hash, entry] of this.entries) {
      if (entry.host.id === hostId) this.entries.delete(hash);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}

// Next bundles its own copy of lib next to the custom server's: both must see one cache so revocation is immediate.
const holder = globalThis as typeof globalThis & { __inferwatchHostTokenCache?: HostTokenCache };

export function hostTokenCache(): HostTokenCache {
  holder.__inferwatchHostTokenCache ??= new HostTokenCache(
    Math.min(MAX_TOKEN_CACHE_TTL_MS, Number(process.env.INFERWATCH_TOKEN_CACHE_TTL_MS ?? MAX_TOKEN_CACHE_TTL_MS)),
  );
  return holder.__inferwatchHostTokenCache;
}
