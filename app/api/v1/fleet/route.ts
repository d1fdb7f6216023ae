import { getReadDb } from '@/lib/db';
import { getFleetPage } from '@/lib/fleet';
import { route } from '@/lib/http/route';
import { DEFAULT_FLEET_PAGE_SIZE, fleetParamsSchema } from '@/lib/protocol/read-api/fleet';
import { serverEnvironment } from '@/lib/server/environment';

export const dynamic = 'force-dynamic';

/** One page of hosts (filters, sort, page and limit in the query) with the fleet's tiles. */
export const GET = route({
  role: 'viewer',
  query: fleetParamsSchema,
  handle: async ({ query }) => getFleetPage(await getReadDb(), { ...query, limit: query.limit ?? DEFAULT_FLEET_PAGE_SIZE }, { staleAfterMs: serverEnvironment().staleAfterMs }),
});
