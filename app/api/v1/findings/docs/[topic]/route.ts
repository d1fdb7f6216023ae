import { getTopicDoc } from '@/lib/findings/read/rule-doc';
import { route } from '@/lib/http/route';
import { z } from 'zod';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** A findings doc that is not a rule's (latency explained), as Markdown. */
export const GET = route({
  role: 'viewer',
  params: z.object({ topic: z.string().trim().min(1).max(100) }),
  handle: ({ params }) => getTopicDoc(params.topic),
});
