import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { DEMO_REGIONS } from './fleet';

/** What the demo keeps across restarts, so it continues its hosts instead of enrolling new ones. */
const savedHostSchema = z.object({
  hostId: z.number().int().positive().nullable(),
  token: z.string().min(1).nullable(),
  nextSeq: z.number().int().min(0),
  /** The ts of its newest report generated so far; the next run backfills from there. */
  lastTs: z.number().int().positive().nullable(),
});
export type SavedHost = z.infer<typeof savedHostSchema>;

const regionKeysSchema = z.partialRecord(z.enum(DEMO_REGIONS), z.string().min(1));
export type RegionKeys = z.infer<typeof regionKeysSchema>;

const demoStateSchema = z.object({
  version: z.literal(1),
  seed: z.string(),
  /** When the fleet first started: the silent host and the spool counter count from it. */
  epochMs: z.number().int().positive(),
  /** Plaintext enrollment keys per region (the file is 0600, as the local agent's key file is). */
  keys: regionKeysSchema,
  hosts: z.record(z.string(), savedHostSchema),
});
export type DemoState = z.infer<typeof demoStateSchema>;

export interface DemoStateStore {
  load(): DemoState | null;
  save(state: DemoState): void;
}

export function newDemoState(seed: string, nowMs: number): DemoState {
  return { version: 1, seed, epochMs: Math.round(nowMs), keys: {}, hosts: {} };
}

/** The state in one JSON file, written to a temporary file and renamed so a crash never leaves half of it. */
export function fileStateStore(file: string): DemoStateStore {
  return {
    load() {
      if (!fs.existsSync(file)) return null;
      try {
        const parsed = demoStateSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
        return parsed.success ? parsed.data : null;
      } catch {
        return null;
      }
    },
    save(state) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, `${JSON.stringify(state)}\n`, { mode: 0o600 });
      fs.renameSync(temporary, file);
    },
  };
}
