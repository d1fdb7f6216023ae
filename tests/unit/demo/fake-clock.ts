import type { DemoTimers } from '../../../lib/demo/runner';

/** Timers that run only when the test moves the clock; each callback's promises settle before the next one. */
export class FakeClock implements DemoTimers {
  private nextId = 1;
  private readonly timers = new Map<number, { atMs: number; fn: () => void }>();
  constructor(public nowMs: number) {}
  now = () => this.nowMs;
  setTimeout = (fn: () => void, ms: number) => {
    const id = this.nextId++;
    this.timers.set(id, { atMs: this.nowMs + Math.max(0, ms), fn });
    return id;
  };
  clearTimeout = (handle: unknown) => void this.timers.delete(handle as number);
  async advanceTo(targetMs: number): Promise<void> {
    await settle();
    for (;;) {
      const due = [...this.timers].filter(([, t]) => t.atMs <= targetMs).sort((a, b) => a[1].atMs - b[1].atMs || a[0] - b[0])[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.nowMs = Math.max(this.nowMs, due[1].atMs);
      due[1].fn();
      await settle();
    }
    this.nowMs = targetMs;
  }
}

export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

