import { getDb } from '@/lib/db';
import { deleteResidencyPolicy } from '@/lib/findings/store/residency-policies';
import { route } from '@/lib/http/route';
import { findingPathSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

export const DELETE = route({
  role: 'admin',
  params: findingPathSchema,
  status: 204,
  handle: async ({ params }) => deleteResidencyPolicy(await getDb(), params.id),
  audit: ({ params }) => ({ action: 'residency-policy.delete', target: `residency policy ${params.id}` }),
});
