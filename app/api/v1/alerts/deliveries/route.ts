import { requireRole } from '@/lib/auth/principal';
import { listDeliveries } from '@/lib/alerts';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { deliveriesQuerySchema } from '@/lib/protocol/alerts';
import { searchParamsObject } from '@/lib/protocol/read-api/params';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The delivery log, newest first: attempts, status, last error; `channel`, `alert`, `status` filter it. */
export async function GET(request: Request) {
  try {
    await requireRole(request, 'editor');
    const query = deliveriesQuerySchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json(await listDeliveries(await getDb(), query), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
