import { getReadDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { hostPathSchema } from '@/lib/protocol/read-api/host';
import { hostSeriesParamsSchema } from '@/lib/protocol/read-api/series';
import { getHostSeries } from '@/lib/series';

export const dynamic = 'force-dynamic';

export const GET = route({
  role: 'viewer',
  params: hostPathSchema,
  query: hostSeriesParamsSchema,
  handle: async ({ params, query }) => getHostSeries(await getReadDb(), { hostId: params.id, ...query }),
});
