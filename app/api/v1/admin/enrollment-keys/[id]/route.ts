import { audit, requireRole } from '@/lib/auth/principal';
import { revokeEnrollmentKey } from '@/lib/auth/enrollment-keys';
import { enrollmentKeyIdSchema } from '@/lib/auth/enrollment-key-input';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function DELETE(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    const principal = await requireRole(request, 'admin');
    const id = enrollmentKeyIdSchema.parse((await context.params).id);
    const result = await revokeEnrollmentKey(await getDb(), id);
    await audit(request, principal, { action: 'enrollment-key.revoke', target: `enrollment key ${id}` });
    return Response.json(result, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
