import { getReadDb } from '@/lib/db';
import { getHostInventory } from '@/lib/fleet';
import { route } from '@/lib/http/route';
import { hostPathSchema } from '@/lib/protocol/read-api/host';
import { hostInventoryParamsSchema } from '@/lib/protocol/read-api/inventory';

export const dynamic = 'force-dynamic';

/** The host's inventory as of `to` and its change history over [from, to) (default: the last 90 days). */
export const GET = route({
  role: 'viewer',
  params: hostPathSchema,
  query: hostInventoryParamsSchema,
  handle: async ({ params, query }) => getHostInventory(await getReadDb(), { hostId: params.id, ...query }),
});
