import { listDeliveries } from '@/lib/alerts';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { deliveriesQuerySchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The delivery log, newest first: attempts, status, last error; `channel`, `alert`, `status` filter it. */
export const GET = route({
  role: 'editor',
  query: deliveriesQuerySchema,
  handle: async ({ query }) => listDeliveries(await getDb(), query),
});
