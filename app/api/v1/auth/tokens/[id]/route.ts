import { revokeApiToken } from '@/lib/auth/api-tokens';
import { signedInUser } from '@/lib/auth/signed-in-user';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { idParamSchema } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';

/** Revokes one of the signed-in user's tokens; it stops working at once. */
export const DELETE = route({
  role: 'viewer',
  params: idParamSchema,
  handle: async ({ principal, params }) => {
    const db = await getDb();
    return revokeApiToken(db, (await signedInUser(db, principal)).id, params.id);
  },
  audit: ({ params }, token) => ({ action: 'api-token.revoke', target: `API token ${params.id} (${token.name})` }),
});
