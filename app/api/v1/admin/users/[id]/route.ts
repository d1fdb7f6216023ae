import { revokeUserSessions } from '@/lib/auth/sessions';
import { countActiveAdmins, findUserById, updateUser } from '@/lib/auth/users';
import { getDb } from '@/lib/db';
import { ConflictError, NotFoundError } from '@/lib/errors';
import { route } from '@/lib/http/route';
import { idParamSchema, userPatchSchema } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Changes a user's name, role, password or disables them; a change of role, password or access ends their sessions. */
export const PATCH = route({
  role: 'admin',
  params: idParamSchema,
  body: userPatchSchema,
  bodyMaxBytes: 8192,
  handle: async ({ params: { id }, body: patch }) => {
    const db = await getDb();
    const before = await findUserById(db, id);
    if (!before) throw new NotFoundError(`user ${id} not found`);
    const losesAdmin = before.role === 'admin' && !before.disabled && (patch.disabled === true || (patch.role !== undefined && patch.role !== 'admin'));
    if (losesAdmin && (await countActiveAdmins(db)) <= 1) throw new ConflictError('the last admin cannot be disabled or demoted');
    const result = await updateUser(db, id, patch);
    if (patch.disabled || patch.password !== undefined || (patch.role !== undefined && patch.role !== before.role)) await revokeUserSessions(db, id);
    return result;
  },
  audit: ({ params: { id }, body: patch }, user) => ({
    action: 'user.update',
    target: `user ${id} (${user.email})`,
    detail: { changed: Object.keys(patch).map((key) => (key === 'password' ? 'password' : `${key}=${JSON.stringify(patch[key as keyof typeof patch])}`)) },
  }),
});
