export type DatabaseTarget =
  | { kind: 'server'; url: string }
  | { kind: 'embedded'; dataDir: string };

/** The URL with its password masked, for logs. */
export function describeTarget(target: DatabaseTarget): string {
  if (target.kind === 'embedded') return `embedded PostgreSQL at ${target.dataDir}`;
  const url = new URL(target.url);
  if (url.password) url.password = '***';
  return `PostgreSQL server ${url.toString()}`;
}
