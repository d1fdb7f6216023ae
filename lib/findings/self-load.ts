import fs from 'node:fs';
import os from 'node:os';
import { processSingleton } from '../process-singleton';
import type { HostFacts } from './types';

/** PSI's avg10, which the pressure rules average, needs about a minute to forget a load that ended. */
export const SELF_LOAD_SETTLE_MS = 60_000;

export interface ThisMachine {
  hostname: string;
  /** /etc/machine-id, null where there is none (most containers). */
  machineId: string | null;
}

/**
 * When inferwatch itself loads the machine it runs on (the demo fleet's backfill, sent through this server's own
 * ingest), the agent on that machine measures inferwatch, not the machine. Work of that kind is marked here, and
 * the findings engine does not judge this machine on a window that overlaps it (setAsideSelfLoad).
 */
export class SelfLoad {
  private running = 0;
  private lastEndMs = -Infinity;

  constructor(
    readonly machine: ThisMachine,
    private readonly now: () => number = Date.now,
  ) {}

  /** Marks the start of such work; the function it returns marks its end (once, however often it is called). */
  begin(): () => void {
    this.running++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.running--;
      this.lastEndMs = Math.max(this.lastEndMs, this.now());
    };
  }

  /** Samples of this machine before this time may carry inferwatch's own load: Infinity while such work runs. */
  loadedUntilMs(): number {
    return this.running > 0 ? Infinity : this.lastEndMs + SELF_LOAD_SETTLE_MS;
  }

  isThisMachine(host: { hostname: string; machineId?: string | null }): boolean {
    if (this.machine.machineId !== null && host.machineId) return host.machineId === this.machine.machineId;
    return host.hostname === this.machine.hostname;
  }
}

function readMachineId(): string | null {
  try {
    return fs.readFileSync('/etc/machine-id', 'utf8').trim() || null;
  } catch {
    return null;
  }
}

/**
 * This process's record: `npm start` marks its own start (after a build) and the demo fleet its backfill here, and
 * the findings engine reads it by default.
 */
export function selfLoadOfThisProcess(): SelfLoad {
  return processSingleton('self-load', () => new SelfLoad({ hostname: os.hostname(), machineId: readMachineId() }));
}

/**
 * This machine's window is not judged while it overlaps inferwatch's own load: the window rules then leave its
 * findings as they were, open none from that load and resolve none for the want of one. Returns the hosts set aside.
 */
export function setAsideSelfLoad(hosts: HostFacts[], selfLoad: Pick<SelfLoad, 'loadedUntilMs' | 'isThisMachine'>): number[] {
  const loadedUntilMs = selfLoad.loadedUntilMs();
  const setAside: number[] = [];
  for (const facts of hosts) {
    if (!facts.window || facts.window.fromMs >= loadedUntilMs || !selfLoad.isThisMachine(facts.host)) continue;
    facts.window = null;
    setAside.push(facts.host.id);
  }
  return setAside;
}
