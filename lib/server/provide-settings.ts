import { processAuthSetting } from '../auth/principal';
import { processDatabaseSetting } from '../db';
import { processRetentionSetting } from '../series/retention-config';
import { serverEnvironment } from './environment';

/**
 * Hands lib/ the settings it reads at call time (the database getDb() opens, who a request acts as, retention for
 * reads) from this process's parsed environment. Entry points call it once: server.ts, npm run admin, benchmarks and
 * tests. Each read goes through serverEnvironment(), which parses again only when a variable changed (tests do).
 */
export function provideServerSettings(): void {
  processDatabaseSetting.provide(() => {
    const env = serverEnvironment();
    return { target: env.database, pools: env.databasePools };
  });
  processAuthSetting.provide(() => {
    const { host, localSignIn, adminToken, publicUrl } = serverEnvironment();
    return { host, localSignIn, adminToken, publicUrl };
  });
  processRetentionSetting.provide(() => serverEnvironment().retentionDays);
}
