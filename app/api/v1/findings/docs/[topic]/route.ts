import { requireRole } from '@/lib/auth/principal';
import { toErrorResponse } from '@/lib/errors';
import { getTopicDoc } from '@/lib/findings/read/rule-doc';
import { z } from 'zod';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const pathSchema = z.object({ topic: z.string().trim().min(1).max(100) });

/** A findings doc that is not a rule's (latency explained), as Markdown. */
export async function GET(request: Request, context: { params: Promise<{ topic: string }> }) {
  try {
    await requireRole(request, 'viewer');
    const { topic } = pathSchema.parse(await context.params);
    return Response.json(await getTopicDoc(topic));
  } catch (err) {
    return toErrorResponse(err);
  }
}
