import { requireRole } from '@/lib/auth/principal';
import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { getFinding } from '@/lib/findings/read/list-findings';
import { findingPathSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    await requireRole(request, 'viewer');
    const { id } = findingPathSchema.parse(await context.params);
    return Response.json(await getFinding(await getReadDb(), id), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
