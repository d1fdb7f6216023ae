import type { Clock } from '../../../agent/clock';

export interface VirtualClock extends Clock {
  /** Moves time on, as work that takes `ms` would. */
  advance(ms: number): void;
  /** Every sleep asked for, in order. */
  readonly sleeps: number[];
}

/**
 * A clock whose time moves only when told to: sleep(ms) advances it by ms and resolves on the next turn of the
 * event loop, so a test of the agent's timing runs as fast as the machine allows and gets the same result anywhere.
 */
export function createVirtualClock(startMonoMs = 5_000, startWallMs = 1_795_000_000_000): VirtualClock {
  let mono = startMonoMs;
  const sleeps: number[] = [];
  return {
    monoMs: () => mono,
    wallMs: () => startWallMs + (mono - startMonoMs),
    async sleep(ms, signal) {
      sleeps.push(ms);
      if (!signal?.aborted) mono += Math.max(0, ms);
      await new Promise((resolve) => setImmediate(resolve));
    },
    advance(ms) {
      mono += ms;
    },
    sleeps,
  };
}
