import 'server-only';
import path from 'node:path';
import type { Database } from '../db';
import type { DatabaseTarget } from '../db/target';
import { selfLoadOfThisProcess } from '../findings/self-load';
import { DEMO_REGIONS } from './fleet';
import { httpPoster } from './http-post';
import { ensureDemoKeys } from './keys';
import { DemoRunner, type DemoTimers } from './runner';
import { fileStateStore } from './state';

/**
 * On by default only on the embedded database (a first `npm start`); INFERWATCH_DEMO=0 turns it off and
 * INFERWATCH_DEMO=1 turns it on against a PostgreSQL server too.
 */
export function demoEnabled(demo: boolean | undefined, target: DatabaseTarget): boolean {
  return demo ?? target.kind === 'embedded';
}

// Unref'd: the demo's timers never keep the process alive.
const systemTimers: DemoTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms)).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout | undefined),
};

export interface DemoFleetOptions {
  db: Pick<Database, 'prisma'>;
  /** The server's own URL: the demo reports through its ingest API like any agent. */
  serverUrl: string;
  /** Where the demo keeps its host tokens and seqs (INFERWATCH_STATE_DIR/demo). */
  stateDir: string;
}

/** Starts the demo fleet in the background; call after the HTTP listener is up. */
export function startDemoFleet(options: DemoFleetOptions): { stop(): Promise<void> } {
  const log = (message: string) => console.error(`inferwatch: demo: ${message}`);
  const runner = new DemoRunner({
    timers: systemTimers,
    post: httpPoster(options.serverUrl),
    ensureKeys: (saved) => ensureDemoKeys(options.db, saved),
    store: fileStateStore(path.join(options.stateDir, 'state.json')),
    log,
    selfLoad: selfLoadOfThisProcess(),
  });
  const started = runner
    .start()
    .then(() => {
      console.log(`inferwatch: demo fleet: ${runner.hosts.length} simulated hosts in ${DEMO_REGIONS.join(', ')}, labelled demo=true (INFERWATCH_DEMO=0 turns it off)`);
      return runner.idle();
    })
    .then(() => console.log('inferwatch: demo fleet: its history is backfilled; each host now reports every 10 s'))
    .catch((err: unknown) => log(`could not start: ${(err as Error).message}`));
  return {
    async stop() {
      await runner.stop();
      await started;
    },
  };
}
