import { processSingleton } from '../process-singleton';

/** How a key's wait grows: none for the first `freeFailures`, then `firstDelayMs` doubling per failure, capped. */
export interface BackoffPolicy {
  freeFailures: number;
  firstDelayMs: number;
  maxDelayMs: number;
  /** A key with no failure for this long starts again from nothing. */
  forgetAfterMs: number;
}

/** One account (email), from any address: five tries for a person mistyping, then 30 s, 1 min, 2 min … 15 min. */
export const ACCOUNT_BACKOFF: BackoffPolicy = { freeFailures: 5, firstDelayMs: 30_000, maxDelayMs: 15 * 60_000, forgetAfterMs: 60 * 60_000 };

/**
 * One client address, counted in accounts that failed from it and have not signed in since (password spraying), not in
 * failures: a storm against one account from an office's address counts once, and a colleague's typo followed by
 * their sign-in counts not at all.
 */
export const ADDRESS_BACKOFF: BackoffPolicy = { freeFailures: 20, firstDelayMs: 30_000, maxDelayMs: 15 * 60_000, forgetAfterMs: 60 * 60_000 };

/** The wait after `failures` failures (OWASP's exponential back-off). */
export function backoffDelayMs(policy: BackoffPolicy, failures: number): number {
  if (failures < policy.freeFailures) return 0;
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (failures - policy.freeFailures));
}

export type LoginVerdict =
  | { admitted: true }
  | {
      admitted: false;
      /** Which key is waiting (the longer wait when both are). */
      scope: 'account' | 'address';
      retryAfterMs: number;
      /** The first refusal since that key's last failure: audit that one, not every refusal of a storm. */
      firstRefusal: boolean;
    };

interface AccountState {
  failures: number;
  lastFailureMs: number;
  refused: boolean;
}

interface AddressState {
  /** Email → its last failure from this address, until it signs in from here or is forgotten. */
  accounts: Map<string, number>;
  lastFailureMs: number;
  refused: boolean;
}

// Bounds on memory under a flood of made-up emails or addresses: past them the oldest entries go first.
const MAX_KEYS = 50_000;
const MAX_ACCOUNTS_PER_ADDRESS = 1_000;

/**
 * Sign-in throttling per account and per client address, each with a growing wait, so a guesser slows to a crawl
 * while nobody else behind the same address is refused. An attempt counts as a failure when it is admitted (so a
 * burst of parallel guesses cannot slip past the count) and is taken back when it signs in. One process's memory:
 * behind several replicas each holds its own.
 */
export class LoginLimiter {
  private readonly accounts = new Map<string, AccountState>();
  private readonly addresses = new Map<string, AddressState>();

  constructor(
    private readonly clock: () => number = Date.now,
    private readonly accountPolicy: BackoffPolicy = ACCOUNT_BACKOFF,
    private readonly addressPolicy: BackoffPolicy = ADDRESS_BACKOFF,
  ) {}

  private account(email: string, now: number): AccountState | undefined {
    const state = this.accounts.get(email);
    if (state && now - state.lastFailureMs >= this.accountPolicy.forgetAfterMs) this.accounts.delete(email);
    return this.accounts.get(email);
  }

  private address(address: string, now: number): AddressState | undefined {
    const state = this.addresses.get(address);
    if (!state) return undefined;
    for (const [email, at] of state.accounts) if (now - at >= this.addressPolicy.forgetAfterMs) state.accounts.delete(email);
    if (state.accounts.size === 0) {
      this.addresses.delete(address);
      return undefined;
    }
    return state;
  }

  /** How long until this account, and this address, may try again (0: now). */
  waits(email: string, address: string): { accountMs: number; addressMs: number } {
    const now = this.clock();
    const account = this.account(email, now);
    const from = this.address(address, now);
    const until = (last: number, delay: number) => Math.max(0, last + delay - now);
    return {
      accountMs: account ? until(account.lastFailureMs, backoffDelayMs(this.accountPolicy, account.failures)) : 0,
      addressMs: from ? until(from.lastFailureMs, backoffDelayMs(this.addressPolicy, from.accounts.size)) : 0,
    };
  }

  /** Admits an attempt (counting it as a failure until `succeeded`), or says how long to wait. */
  admit(email: string, address: string): LoginVerdict {
    const now = this.clock();
    const { accountMs, addressMs } = this.waits(email, address);
    if (accountMs > 0 || addressMs > 0) {
      const scope = accountMs >= addressMs ? 'account' : 'address';
      const state = scope === 'account' ? this.accounts.get(email)! : this.addresses.get(address)!;
      const firstRefusal = !state.refused;
      state.refused = true;
      return { admitted: false, scope, retryAfterMs: Math.max(accountMs, addressMs), firstRefusal };
    }
    const account = this.account(email, now) ?? { failures: 0, lastFailureMs: now, refused: false };
    this.accounts.delete(email);
    this.accounts.set(email, { failures: account.failures + 1, lastFailureMs: now, refused: false });
    const from = this.address(address, now) ?? { accounts: new Map<string, number>(), lastFailureMs: now, refused: false };
    from.accounts.delete(email);
    from.accounts.set(email, now);
    if (from.accounts.size > MAX_ACCOUNTS_PER_ADDRESS) from.accounts.delete(from.accounts.keys().next().value!);
    this.addresses.delete(address);
    this.addresses.set(address, { ...from, lastFailureMs: now, refused: false });
    this.bound();
    return { admitted: true };
  }

  /** The attempt signed in: the account starts again from nothing, and no longer counts against this address. */
  succeeded(email: string, address: string): void {
    this.accounts.delete(email);
    const from = this.addresses.get(address);
    from?.accounts.delete(email);
    if (from?.accounts.size === 0) this.addresses.delete(address);
  }

  private bound(): void {
    for (const map of [this.accounts, this.addresses] as Map<string, unknown>[]) {
      while (map.size > MAX_KEYS) map.delete(map.keys().next().value!);
    }
  }
}

/** This process's limiter. */
export function processLoginLimiter(): LoginLimiter {
  return processSingleton('login-limiter-backoff', () => new LoginLimiter());
}
