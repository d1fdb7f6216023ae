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

/** The target without its password: what may be written to a file others compare against. */
export function withoutPassword(target: DatabaseTarget): DatabaseTarget {
  if (target.kind === 'embedded') return target;
  const url = new URL(target.url);
  url.password = '';
  return { kind: 'server', url: url.toString() };
}

/** Whether two targets name the same database: the same data folder, or the same server, port, user and database. */
export function sameDatabase(a: DatabaseTarget, b: DatabaseTarget): boolean {
  if (a.kind === 'embedded' || b.kind === 'embedded') return a.kind === 'embedded' && b.kind === 'embedded' && a.dataDir === b.dataDir;
  const [x, y] = [new URL(a.url), new URL(b.url)];
  const port = (url: URL) => url.port || '5432';
  const user = (url: URL) => decodeURIComponent(url.username);
  const name = (url: URL) => decodeURIComponent(url.pathname.slice(1)) || user(url);
  return x.hostname === y.hostname && port(x) === port(y) && user(x) === user(y) && name(x) === name(y);
}
