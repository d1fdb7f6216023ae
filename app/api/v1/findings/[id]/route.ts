import { getReadDb } from '@/lib/db';
import { getFinding } from '@/lib/findings/read/list-findings';
import { route } from '@/lib/http/route';
import { findingPathSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

export const GET = route({
  role: 'viewer',
  params: findingPathSchema,
  handle: async ({ params }) => getFinding(await getReadDb(), params.id),
});
