import 'server-only';
import { openDatabase, type Database } from './open';
import type { DatabasePools } from './pools';
import type { DatabaseTarget } from './target';
import { processSetting, processSlot } from '../process-singleton';

export type { Database } from './open';

/** The database this process serves, as its entry point provides it (server.ts, npm run admin). */
export const processDatabaseSetting = processSetting<{ target: DatabaseTarget; pools: DatabasePools }>('database');

// One database per process, whichever copy of lib asks (PGlite allows one opener).
const opened = processSlot<Promise<Database>>('db');

export function getDb(): Promise<Database> {
  let pending = opened.get();
  if (!pending) {
    const { target, pools } = processDatabaseSetting.get();
    pending = openDatabase(target, pools).catch((err: unknown) => {
      opened.set(undefined);
      throw err;
    });
    opened.set(pending);
  }
  return pending;
}

export async function closeDb(): Promise<void> {
  const pending = opened.get();
  opened.set(undefined);
  if (pending) await (await pending).close();
}

const readViews = new WeakMap<Database, Database>();

/**
 * The handle pages and the read API read through: the same database, with `sql` on the read pool (its own
 * connections, every statement timed out), so a slow read neither runs forever nor takes engines' or ingest's
 * connections. Pass it to the same lib read functions as getDb()'s.
 */
export async function getReadDb(): Promise<Database> {
  const db = await getDb();
  let view = readViews.get(db);
  if (!view) {
    view = { ...db, sql: db.readSql };
    readViews.set(db, view);
  }
  return view;
}
