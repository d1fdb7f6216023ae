import { audit, requireRole } from '@/lib/auth/principal';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { deleteResidencyPolicy } from '@/lib/findings/store/residency-policies';
import { findingPathSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

export async function DELETE(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    const principal = await requireRole(request, 'admin');
    const { id } = findingPathSchema.parse(await context.params);
    await deleteResidencyPolicy(await getDb(), id);
    await audit(request, principal, { action: 'residency-policy.delete', target: `residency policy ${id}` });
    return new Response(null, { status: 204 });
  } catch (err) {
    return toErrorResponse(err);
  }
}
