import { createSilence, listSilences } from '@/lib/alerts';
import { getDb, getReadDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { silenceInputSchema, silencesQuerySchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const GET = route({
  role: 'viewer',
  query: silencesQuerySchema,
  handle: async ({ query }) => ({ silences: await listSilences(await getReadDb(), query) }),
});

/** `{ "matchers": [{ "name": "host", "value": "gpu-1" }], "endsAt": "...", "comment": "...", "createdBy": "..." }`. */
export const POST = route({
  role: 'editor',
  body: silenceInputSchema,
  status: 201,
  handle: async ({ body }) => createSilence(await getDb(), body),
  audit: (_, silence) => ({ action: 'silence.create', target: `silence ${silence.id}` }),
});
