import { requireRole } from '@/lib/auth/principal';
import { listAlerts } from '@/lib/alerts';
import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { alertsQuerySchema } from '@/lib/protocol/alerts';
import { searchParamsObject } from '@/lib/protocol/read-api/params';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Alerts: `state=active` (pending and firing, the default), `firing`, `pending`, `resolved` or `all` (history). */
export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    const query = alertsQuerySchema.parse(searchParamsObject(new URL(request.url).searchParams));
    return Response.json(await listAlerts(await getReadDb(), query), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
