import { createRule, listRules } from '@/lib/alerts';
import { getDb, getReadDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { alertRuleInputSchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const GET = route({ role: 'viewer', handle: async () => ({ rules: await listRules(await getReadDb()) }) });

/** Creates a rule (see docs/alerts.md for the spec). */
export const POST = route({
  role: 'editor',
  body: alertRuleInputSchema,
  status: 201,
  handle: async ({ body }) => createRule(await getDb(), body),
  audit: ({ body }) => ({ action: 'alert-rule.create', target: `alert rule ${body.id}` }),
});
