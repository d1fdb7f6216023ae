import { getReadDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { hostLatencySeriesParamsSchema, hostPathSchema } from '@/lib/protocol/read-api/host';
import { listHostLatencySeries } from '@/lib/series';

export const dynamic = 'force-dynamic';

/** The latency series names the host reported over [from, to) (default: the last 24 h), busiest first. */
export const GET = route({
  role: 'viewer',
  params: hostPathSchema,
  query: hostLatencySeriesParamsSchema,
  handle: async ({ params, query }) => listHostLatencySeries(await getReadDb(), { hostId: params.id, ...query }),
});
