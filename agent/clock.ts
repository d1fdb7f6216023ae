import { sleep } from './transport/backoff';

/** Time as the agent's loop sees it; tests pass a virtual one so their outcome never depends on the machine's speed. */
export interface Clock {
  /** Monotonic milliseconds: intervals and rates are measured on it. */
  monoMs(): number;
  /** Epoch milliseconds: report timestamps. */
  wallMs(): number;
  /** Resolves after `ms` (at once for ms ≤ 0), or as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  monoMs: () => performance.now(),
  wallMs: () => Date.now(),
  sleep,
};
