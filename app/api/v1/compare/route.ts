import { getReadDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { compareParamsSchema } from '@/lib/protocol/read-api/compare';
import { compareHosts } from '@/lib/series';

export const dynamic = 'force-dynamic';

/** One metric of many hosts (region, labels, picked ids or the fleet) on one time axis, the top `limit` by value. */
export const GET = route({
  role: 'viewer',
  query: compareParamsSchema,
  handle: async ({ query }) => compareHosts(await getReadDb(), query),
});
