import { getReadDb } from '@/lib/db';
import { getCompareChoices } from '@/lib/fleet';
import { route } from '@/lib/http/route';
import { compareChoicesParamsSchema } from '@/lib/protocol/read-api/compare';

export const dynamic = 'force-dynamic';

/** The compare page's pickers: regions, latency series names, and hosts matching `q`. */
export const GET = route({
  role: 'viewer',
  query: compareChoicesParamsSchema,
  handle: async ({ query }) => getCompareChoices(await getReadDb(), query),
});
