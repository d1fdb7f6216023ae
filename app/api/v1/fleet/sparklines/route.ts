import { getReadDb } from '@/lib/db';
import { getFleetSparklines } from '@/lib/fleet';
import { route } from '@/lib/http/route';
import { sparklineParamsSchema } from '@/lib/protocol/read-api/fleet';

export const dynamic = 'force-dynamic';

/** `?ids=1,2,3&metric=steal|p99[&latency=name]`: the last hour per host, a point per minute. */
export const GET = route({
  role: 'viewer',
  query: sparklineParamsSchema,
  handle: async ({ query }) => getFleetSparklines(await getReadDb(), query),
});
