import { Gauge, type Registry } from 'prom-client';
import type { Database } from '../db/open';
import { sharedRead } from '../metrics/shared-read';
import { readRollupBacklog } from './rollup';

/**
 * How far the rollups are behind now. In steady state the 1 m watermark is 90–165 s old (a minute is rolled once it
 * has settled, by a pass every 15 s) and the 1 h one up to an hour more; ages or a late queue that keep growing mean
 * the rollups are falling behind.
 */
export function registerRollupMetrics(registry: Registry, readDb: () => Promise<Pick<Database, 'sql'>>): void {
  const backlog = sharedRead(async () => readRollupBacklog(await readDb()));
  new Gauge({
    name: 'inferwatch_rollup_watermark_age_seconds',
    help: 'Seconds since the end of the newest rolled-up bucket, per resolution.',
    labelNames: ['resolution'],
    registers: [registry],
    async collect() {
      const { watermarks } = await backlog();
      const nowMs = Date.now();
      this.reset();
      for (const [resolution, mark] of Object.entries(watermarks)) this.set({ resolution }, (nowMs - mark.getTime()) / 1000);
    },
  });
  new Gauge({
    name: 'inferwatch_rollup_late_buckets_queued',
    help: '(host, minute) buckets holding late reports, waiting to be rolled up again.',
    registers: [registry],
    async collect() {
      this.set((await backlog()).lateBucketsQueued);
    },
  });
}
