import { deleteRule, getRule, updateRule } from '@/lib/alerts';
import { getDb, getReadDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { alertRulePatchSchema, alertRulePathSchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const GET = route({
  role: 'viewer',
  params: alertRulePathSchema,
  handle: async ({ params }) => getRule(await getReadDb(), params.id),
});

/** Changes what the body gives: title, severity, enabled, runbookUrl, spec (as a whole). */
export const PATCH = route({
  role: 'editor',
  params: alertRulePathSchema,
  body: alertRulePatchSchema,
  handle: async ({ params, body }) => updateRule(await getDb(), params.id, body),
  audit: ({ params }) => ({ action: 'alert-rule.update', target: `alert rule ${params.id}` }),
});

/** Deletes a rule and its history; shipped rules answer 409 (disable them instead). */
export const DELETE = route({
  role: 'editor',
  params: alertRulePathSchema,
  status: 204,
  handle: async ({ params }) => deleteRule(await getDb(), params.id),
  audit: ({ params }) => ({ action: 'alert-rule.delete', target: `alert rule ${params.id}` }),
});
