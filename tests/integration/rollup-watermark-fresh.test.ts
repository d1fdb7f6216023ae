import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { GET } from '../../app/metrics/route';
import { closeDb } from '../../lib/db';
import { openDatabase, type Database } from '../../lib/db/open';
import { startSeriesMaintenance } from '../../lib/series/maintenance';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { insertHost, insertHostSample } from './series-support';

let testDb: TestDatabase;
let db: Database;

beforeAll(async () => {
  testDb = await createTestDatabase();
  process.env.DATABASE_URL = testDb.url;
  db = await openDatabase({ kind: 'server', url: testDb.url });
});
afterAll(async () => {
  await closeDb();
  await db?.close();
  await testDb?.drop();
});

/** One pass of the server's own series maintenance (partitions, retention, rollups), as at start-up. */
async function maintenancePass(): Promise<void> {
  const maintenance = startSeriesMaintenance(db, { intervalMs: 3_600_000, onError: (err) => { throw err; } });
  await maintenance.runOnce();
  await maintenance.stop();
}

async function watermarkAgesS(): Promise<Record<string, number>> {
  const text = await (await GET(new Request('http://localhost/metrics'))).text();
  const ages = [...text.matchAll(/^inferwatch_rollup_watermark_age_seconds\{resolution="(\w+)"\} (\S+)$/gm)];
  return Object.fromEntries(ages.map(([, resolution, value]) => [resolution!, Number(value)]));
}

describe('the rollup watermark on a fresh install', () => {
  test('is absent while there are no samples: nothing is behind', async () => {
    await maintenancePass();
    expect(await watermarkAgesS()).toEqual({});
  });

  test('starts at the first sample, so its age is about that sample’s, not the days of retention before it', async () => {
    const sampleAgeS = 600;
    const hostId = await insertHost(db.sql, { hostname: 'gpu-1', region: 'oslo', lastSeenAt: new Date() });
    await insertHostSample(db.sql, hostId, new Date(Date.now() - sampleAgeS * 1000), { steal: 3 });
    await maintenancePass();
    const ages = await watermarkAgesS();
    // The minute rollups caught up to what has settled (≤ 150 s behind); hours roll once closed, from the sample's hour.
    expect(ages['1m']).toBeGreaterThan(0);
    expect(ages['1m']).toBeLessThan(sampleAgeS);
    expect(ages['1h']).toBeGreaterThan(0);
    expect(ages['1h']).toBeLessThanOrEqual(sampleAgeS + 3600 + 60);
  });
});
