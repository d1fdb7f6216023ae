import { getReadDb } from '@/lib/db';
import { listFindings } from '@/lib/findings/read/list-findings';
import { route } from '@/lib/http/route';
import { findingsQuerySchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

export const GET = route({
  role: 'viewer',
  query: findingsQuerySchema,
  handle: async ({ query }) => listFindings(await getReadDb(), query),
});
