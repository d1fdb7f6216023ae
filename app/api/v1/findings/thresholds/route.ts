import { getDb, getReadDb } from '@/lib/db';
import { listThresholdOverrides, putThresholdOverride } from '@/lib/findings/store/threshold-overrides';
import { route } from '@/lib/http/route';
import { thresholdOverrideInputSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

export const GET = route({ role: 'viewer', handle: async () => ({ overrides: await listThresholdOverrides(await getReadDb()) }) });

/** Creates or replaces the override of (rule, scope, selector). */
export const PUT = route({
  role: 'editor',
  body: thresholdOverrideInputSchema,
  handle: async ({ body }) => putThresholdOverride(await getDb(), body),
  audit: ({ body }, override) => ({ action: 'threshold-override.put', target: `threshold override ${override.id} (${body.ruleId})` }),
});
