import { getRuleDoc } from '@/lib/findings/read/rule-doc';
import { route } from '@/lib/http/route';
import { z } from 'zod';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** One rule with its doc page's Markdown (what it means, why it costs latency, thresholds, remedy). */
export const GET = route({
  role: 'viewer',
  params: z.object({ id: z.string().trim().min(1).max(100) }),
  handle: ({ params }) => getRuleDoc(params.id),
});
