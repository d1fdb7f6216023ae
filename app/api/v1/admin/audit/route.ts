import { listAudit } from '@/lib/auth/audit';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { auditQuerySchema } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';

/** The audit log, newest first: `?limit=200&before=<id>` pages back. */
export const GET = route({
  role: 'admin',
  query: auditQuerySchema,
  handle: async ({ query }) => ({ entries: await listAudit(await getDb(), query) }),
});
