import 'server-only';
import { openDatabase, type Database } from './open';

export type { Database } from './open';

// Next bundles its own copy of this module next to the custom server's, and dev mode reloads modules:
// one process must still hold exactly one database (PGlite allows one opener), so the handle lives on globalThis.
const holder = globalThis as typeof globalThis & { __inferwatchDb?: Promise<Database> };

export function getDb(): Promise<Database> {
  if (!holder.__inferwatchDb) {
    holder.__inferwatchDb = openDatabase().catch((err) => {
      holder.__inferwatchDb = undefined;
      throw err;
    });
  }
  return holder.__inferwatchDb;
}

export async function closeDb(): Promise<void> {
  const pending = holder.__inferwatchDb;
  holder.__inferwatchDb = undefined;
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
