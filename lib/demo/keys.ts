import 'server-only';
import type { Database } from '../db';
import { createEnrollmentKey, enrollmentKeyRefusal, findEnrollmentKey } from '../auth/enrollment-keys';
import { DEMO_LABELS, DEMO_REGIONS, type DemoRegion } from './fleet';
import type { RegionKeys } from './state';

/**
 * One enrollment key per demo region, labelled demo=true: the saved key while it can still enroll a host, else a
 * new one (a fresh database, a revoked key). Keys are configuration, so they are made here; data only goes over HTTP.
 */
export async function ensureDemoKeys(db: Pick<Database, 'prisma'>, saved: RegionKeys): Promise<Record<DemoRegion, string>> {
  const keys = {} as Record<DemoRegion, string>;
  for (const region of DEMO_REGIONS) {
    const existing = saved[region];
    if (existing && enrollmentKeyRefusal(await findEnrollmentKey(db, existing), new Date()) === null) {
      keys[region] = existing;
      continue;
    }
    const created = await createEnrollmentKey(db, { name: `demo-${region}`, region, labels: { ...DEMO_LABELS } });
    keys[region] = created.key;
  }
  return keys;
}
