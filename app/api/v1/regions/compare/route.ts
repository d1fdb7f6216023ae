import { getReadDb } from '@/lib/db';
import { compareRegions } from '@/lib/fleet';
import { route } from '@/lib/http/route';
import { regionCompareParamsSchema } from '@/lib/protocol/read-api/regions';

export const dynamic = 'force-dynamic';

export const GET = route({
  role: 'viewer',
  query: regionCompareParamsSchema,
  handle: async ({ query }) => compareRegions(await getReadDb(), query),
});
