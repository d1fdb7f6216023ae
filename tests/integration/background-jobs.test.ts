import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SecretBox } from '../../lib/alerts/channels/secret-box';
import { startBackgroundJobs } from '../../lib/server/background';
import { processMetrics } from '../../lib/server/process-metrics';
import { SECRET_KEY } from './alerts-helpers';
import { createEmbeddedDatabase, type TestDatabase } from './ingest-helpers';
import { until } from '../support/until';

let embedded: TestDatabase;

beforeAll(async () => {
  embedded = await createEmbeddedDatabase();
});

afterAll(async () => {
  await embedded?.drop();
});


const leaderGauge = async () => (await processMetrics().leader.get()).values[0]?.value;

describe('background jobs on the embedded database', () => {
  test('the one process leads at once, runs the jobs, and stops them when told to', async () => {
    const { db } = embedded;
    const jobs = startBackgroundJobs(db, { publicUrl: 'http://inferwatch.test', box: new SecretBox(SECRET_KEY) });
    await until('leadership', () => jobs.isLeader());
    expect(await leaderGauge()).toBe(1);
    // Alerting's start writes the default rules; the first findings cycle and rollup pass run beside it.
    await until('the default alert rules', async () => (await db.sql.query('SELECT id FROM alert_rules')).length > 0);
    await jobs.stop();
    expect(jobs.isLeader()).toBe(false);
    expect(await leaderGauge()).toBe(0);
  });
});
