import { getReadDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { latencyParamsSchema } from '@/lib/protocol/read-api/latency';
import { getLatencyQuantiles } from '@/lib/series';

export const dynamic = 'force-dynamic';

export const GET = route({
  role: 'viewer',
  query: latencyParamsSchema,
  handle: async ({ query }) => getLatencyQuantiles(await getReadDb(), query),
});
