import type { Database } from './db';
import { describeTarget, type DatabaseTarget } from './db/target';
import type { HealthReport } from './protocol/health';
import { APP_VERSION } from './version';

const DB_CHECK_TIMEOUT_MS = 3_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref()),
  ]);
}

/** Whether `openDb` gives a database that answers, each within DB_CHECK_TIMEOUT_MS; `target` is the one it opens. */
export async function checkHealth(openDb: () => Promise<Database>, target: DatabaseTarget): Promise<HealthReport> {
  const started = performance.now();
  try {
    const db = await withTimeout(openDb(), DB_CHECK_TIMEOUT_MS);
    await withTimeout(db.sql.query('SELECT 1'), DB_CHECK_TIMEOUT_MS);
    return {
      status: 'ok',
      version: APP_VERSION,
      database: { kind: db.target.kind, ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 },
    };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    console.error(`health: ${describeTarget(target)} unreachable: ${reason}`);
    return {
      status: 'degraded',
      version: APP_VERSION,
      database: { kind: target.kind, ok: false, latencyMs: null, error: 'database unreachable' },
    };
  }
}
