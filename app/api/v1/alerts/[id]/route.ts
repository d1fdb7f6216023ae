import { requireRole } from '@/lib/auth/principal';
import { getAlert } from '@/lib/alerts';
import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { idPathSchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    await requireRole(request, 'viewer');
    const { id } = idPathSchema.parse(await context.params);
    return Response.json(await getAlert(await getReadDb(), id), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
