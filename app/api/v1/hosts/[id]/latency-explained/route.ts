import { getReadDb } from '@/lib/db';
import { explainLatency } from '@/lib/findings/latency/read/explain-latency';
import { route } from '@/lib/http/route';
import { latencyExplainedParamsSchema } from '@/lib/protocol/findings';
import { hostPathSchema } from '@/lib/protocol/read-api/host';

export const dynamic = 'force-dynamic';

/** Did the host's p99 of `name` regress over [from, to) (default the last hour) against the 24 whole hours before, and why. */
export const GET = route({
  role: 'viewer',
  params: hostPathSchema,
  query: latencyExplainedParamsSchema,
  handle: async ({ params, query }) => explainLatency((await getReadDb()).sql, { hostId: params.id, ...query }),
});
