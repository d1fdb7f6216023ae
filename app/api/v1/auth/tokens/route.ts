import { createApiToken, listApiTokens } from '@/lib/auth/api-tokens';
import { signedInUser } from '@/lib/auth/signed-in-user';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { apiTokenInputSchema } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The signed-in user's API tokens (prefixes only). */
export const GET = route({
  role: 'viewer',
  handle: async ({ principal }) => {
    const db = await getDb();
    const user = await signedInUser(db, principal);
    return { tokens: await listApiTokens(db, user.id) };
  },
});

/** `{ name, role?, expiresInDays? }` → the token, shown in this answer only; it acts with at most the user's role. */
export const POST = route({
  role: 'viewer',
  body: apiTokenInputSchema,
  bodyMaxBytes: 4096,
  status: 201,
  handle: async ({ principal, body }) => {
    const db = await getDb();
    return createApiToken(db, await signedInUser(db, principal), body);
  },
  audit: (_, token) => ({ action: 'api-token.create', target: `API token ${token.id} (${token.name})`, detail: { role: token.role } }),
});
