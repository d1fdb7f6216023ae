import { revokeEnrollmentKey } from '@/lib/auth/enrollment-keys';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { idParamSchema } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const DELETE = route({
  role: 'admin',
  params: idParamSchema,
  handle: async ({ params }) => revokeEnrollmentKey(await getDb(), params.id),
  audit: ({ params }) => ({ action: 'enrollment-key.revoke', target: `enrollment key ${params.id}` }),
});
