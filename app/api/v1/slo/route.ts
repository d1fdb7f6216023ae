import { readSloStatus } from '@/lib/alerts/read/slo-status';
import { requireRole } from '@/lib/auth/principal';
import { getReadDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';

export const dynamic = 'force-dynamic';

export async function GET(request: Request) {
  try {
    await requireRole(request, 'viewer');
    return Response.json(await readSloStatus((await getReadDb()).sql, new Date()), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
