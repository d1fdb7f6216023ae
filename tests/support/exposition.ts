import { Registry } from 'prom-client';
import type { Database } from '../../lib/db/open';

type Register = (registry: Registry, readDb: () => Promise<Pick<Database, 'sql'>>) => void;

/** What one group of /metrics collectors exposes when scraped against `db`, in Prometheus text. */
export async function exposition(register: Register, db: Pick<Database, 'sql'>): Promise<string> {
  const registry = new Registry();
  register(registry, async () => db);
  return registry.metrics();
}
