/** The connections of a PostgreSQL server's three pools; the embedded database has one connection. */
export interface DatabasePools {
  /** The main pool (engines, maintenance, writes through the API). */
  poolSize: number;
  /** The pool that serves pages and the read API: at most this many read statements at once. */
  readPoolSize: number;
  /** Ingest's own pool (the group-commit writer, host token lookups). */
  ingestPoolSize: number;
  /** statement_timeout of every read statement (the read pool's), in milliseconds. */
  readTimeoutMs: number;
}

export const DEFAULT_DATABASE_POOLS: DatabasePools = { poolSize: 16, readPoolSize: 8, ingestPoolSize: 4, readTimeoutMs: 15_000 };
