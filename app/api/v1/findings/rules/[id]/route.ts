import { requireRole } from '@/lib/auth/principal';
import { toErrorResponse } from '@/lib/errors';
import { getRuleDoc } from '@/lib/findings/read/rule-doc';
import { z } from 'zod';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const pathSchema = z.object({ id: z.string().trim().min(1).max(100) });

/** One rule with its doc page's Markdown (what it means, why it costs latency, thresholds, remedy). */
export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    await requireRole(request, 'viewer');
    const { id } = pathSchema.parse(await context.params);
    return Response.json(await getRuleDoc(id));
  } catch (err) {
    return toErrorResponse(err);
  }
}
