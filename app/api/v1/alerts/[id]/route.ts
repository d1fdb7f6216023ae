import { getAlert } from '@/lib/alerts';
import { getReadDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { idPathSchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const GET = route({
  role: 'viewer',
  params: idPathSchema,
  handle: async ({ params }) => getAlert(await getReadDb(), params.id),
});
