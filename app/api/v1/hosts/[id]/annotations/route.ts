import { getReadDb } from '@/lib/db';
import { getHostAnnotations } from '@/lib/fleet';
import { route } from '@/lib/http/route';
import { hostAnnotationsParamsSchema } from '@/lib/protocol/read-api/annotations';
import { hostPathSchema } from '@/lib/protocol/read-api/host';

export const dynamic = 'force-dynamic';

/** What the host's charts mark over [from, to): inventory changes, findings opened/resolved, alerts fired/resolved. */
export const GET = route({
  role: 'viewer',
  params: hostPathSchema,
  query: hostAnnotationsParamsSchema,
  handle: async ({ params, query }) => getHostAnnotations(await getReadDb(), { hostId: params.id, ...query }),
});
