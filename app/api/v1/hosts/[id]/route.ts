import { getReadDb } from '@/lib/db';
import { getHostDetail } from '@/lib/fleet';
import { route } from '@/lib/http/route';
import { hostPathSchema } from '@/lib/protocol/read-api/host';
import { serverEnvironment } from '@/lib/server/environment';

export const dynamic = 'force-dynamic';

export const GET = route({
  role: 'viewer',
  params: hostPathSchema,
  handle: async ({ params }) => getHostDetail(await getReadDb(), params.id, { staleAfterMs: serverEnvironment().staleAfterMs }),
});
