import { getReadDb } from '@/lib/db';
import { listFixedFindings } from '@/lib/findings/read/list-findings';
import { route } from '@/lib/http/route';
import { fixedFindingsQuerySchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

export const GET = route({
  role: 'viewer',
  query: fixedFindingsQuerySchema,
  handle: async ({ query }) => listFixedFindings(await getReadDb(), query),
});
