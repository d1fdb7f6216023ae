import path from 'node:path';

export type DatabaseTarget =
  | { kind: 'server'; url: string }
  | { kind: 'embedded'; dataDir: string };

/** A postgres:// URL selects a PostgreSQL server; anything else runs embedded PostgreSQL (PGlite) in a data folder. */
export function resolveDatabaseTarget(env: NodeJS.ProcessEnv = process.env): DatabaseTarget {
  const url = env.DATABASE_URL?.trim();
  if (url && /^postgres(ql)?:\/\//.test(url)) return { kind: 'server', url };
  const dataDir = env.INFERWATCH_DATA_DIR?.trim() || path.join(process.cwd(), '.inferwatch', 'data');
  return { kind: 'embedded', dataDir: path.resolve(dataDir) };
}

/** The URL with its password masked, for logs. */
export function describeTarget(target: DatabaseTarget): string {
  if (target.kind === 'embedded') return `embedded PostgreSQL at ${target.dataDir}`;
  const url = new URL(target.url);
  if (url.password) url.password = '***';
  return `PostgreSQL server ${url.toString()}`;
}
