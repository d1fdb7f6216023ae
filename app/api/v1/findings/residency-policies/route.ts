import { getDb, getReadDb } from '@/lib/db';
import { listResidencyPolicies, putResidencyPolicy } from '@/lib/findings/store/residency-policies';
import { route } from '@/lib/http/route';
import { residencyPolicyInputSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

export const GET = route({ role: 'viewer', handle: async () => ({ policies: await listResidencyPolicies(await getReadDb()) }) });

/** Creates or replaces the policy of that name. */
export const PUT = route({
  role: 'admin',
  body: residencyPolicyInputSchema,
  handle: async ({ body }) => putResidencyPolicy(await getDb(), body),
  audit: ({ body }) => ({ action: 'residency-policy.put', target: `residency policy ${body.name}` }),
});
