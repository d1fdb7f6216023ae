import { audit, requireRole } from '@/lib/auth/principal';
import { revokeUserSessions } from '@/lib/auth/sessions';
import { countActiveAdmins, findUserById, updateUser } from '@/lib/auth/users';
import { getDb } from '@/lib/db';
import { ConflictError, NotFoundError, toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';
import { idParamSchema, userPatchSchema } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Changes a user's name, role, password or disables them; a change of role, password or access ends their sessions. */
export async function PATCH(request: Request, context: { params: Promise<{ id: string }> }) {
  try {
    const principal = await requireRole(request, 'admin');
    const { id } = idParamSchema.parse(await context.params);
    const patch = userPatchSchema.parse(await readJsonBody(request, 8192));
    const db = await getDb();
    const before = await findUserById(db, id);
    if (!before) throw new NotFoundError(`user ${id} not found`);
    const losesAdmin = before.role === 'admin' && !before.disabled && (patch.disabled === true || (patch.role !== undefined && patch.role !== 'admin'));
    if (losesAdmin && (await countActiveAdmins(db)) <= 1) throw new ConflictError('the last admin cannot be disabled or demoted');
    const result = await updateUser(db, id, patch);
    if (patch.disabled || patch.password !== undefined || (patch.role !== undefined && patch.role !== before.role)) await revokeUserSessions(db, id);
    const changed = Object.keys(patch).map((key) => (key === 'password' ? 'password' : `${key}=${JSON.stringify(patch[key as keyof typeof patch])}`));
    await audit(request, principal, { action: 'user.update', target: `user ${id} (${result.email})`, detail: { changed } });
    return Response.json(result, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
