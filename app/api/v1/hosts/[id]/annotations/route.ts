import { requireRole } from '@/lib/auth/principal';
import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { getHostAnnotations } from '@/lib/fleet';
import { hostAnnotationsParamsSchema } from '@/lib/protocol/read-api/annotations';
import { hostPathSchema } from '@/lib/protocol/read-api/host';
import { searchParamsObject } from '@/lib/protocol/read-api/params';

export const dynamic = 'force-dynamic';

/** What the host's charts mark over [from, to): inventory changes, findings opened/resolved, alerts fired/resolved. */
export async function GET(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    await requireRole(request, 'viewer');
    const { id } = hostPathSchema.parse(await context.params);
    const params = hostAnnotationsParamsSchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json(await getHostAnnotations(await getReadDb(), { hostId: id, ...params }), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
