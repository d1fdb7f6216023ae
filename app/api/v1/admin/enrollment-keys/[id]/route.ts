import { authorizeAdmin } from '@/lib/auth/admin-auth';
import { revokeEnrollmentKey } from '@/lib/auth/enrollment-keys';
import { enrollmentKeyIdSchema } from '@/lib/auth/enrollment-key-input';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function DELETE(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    authorizeAdmin(request.headers.get('authorization'));
    const id = enrollmentKeyIdSchema.parse((await context.params).id);
    return Response.json(await revokeEnrollmentKey(await getDb(), id), { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
