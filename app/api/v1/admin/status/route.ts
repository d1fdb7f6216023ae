import { adminStatus } from '@/lib/auth/admin-status';
import { requireReader } from '@/lib/auth/require-reader';
import { toErrorResponse } from '@/lib/errors';

export const dynamic = 'force-dynamic';

/** `{ enabled, tokenAccepted }`: whether writes are possible, and with the bearer token sent, if any. */
export async function GET(request: Request) {
  try {
    await requireReader(request);
    return Response.json(adminStatus(request.headers.get('authorization')), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
