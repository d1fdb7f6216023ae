import { expireSilence } from '@/lib/alerts';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { idPathSchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Expires the silence now; it stays listed as history. */
export const DELETE = route({
  role: 'editor',
  params: idPathSchema,
  handle: async ({ params }) => expireSilence(await getDb(), params.id),
  audit: ({ params }) => ({ action: 'silence.expire', target: `silence ${params.id}` }),
});
