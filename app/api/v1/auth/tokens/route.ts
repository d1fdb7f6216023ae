import { createApiToken, listApiTokens } from '@/lib/auth/api-tokens';
import { audit, requireRole } from '@/lib/auth/principal';
import { signedInUser } from '@/lib/auth/signed-in-user';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';
import { apiTokenInputSchema } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The signed-in user's API tokens (prefixes only). */
export async function GET(request: Request) {
  try {
    const db = await getDb();
    const user = await signedInUser(db, await requireRole(request, 'viewer'));
    return Response.json({ tokens: await listApiTokens(db, user.id) }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/** `{ name, role?, expiresInDays? }` → the token, shown in this answer only; it acts with at most the user's role. */
export async function POST(request: Request) {
  try {
    const db = await getDb();
    const principal = await requireRole(request, 'viewer');
    const user = await signedInUser(db, principal);
    const input = apiTokenInputSchema.parse(await readJsonBody(request, 4096));
    const result = await createApiToken(db, user, input);
    await audit(request, principal, { action: 'api-token.create', target: `API token ${result.id} (${result.name})`, detail: { role: result.role } });
    return Response.json(result, { status: 201, headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
