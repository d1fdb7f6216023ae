import { audit, requireRole } from '@/lib/auth/principal';
import { generatePassword } from '@/lib/auth/passwords';
import { createUser, listUsers } from '@/lib/auth/users';
import { getDb } from '@/lib/db';
import { toErrorResponse } from '@/lib/errors';
import { readJsonBody } from '@/lib/http/json-body';
import { userInputSchema } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function GET(request: Request) {
  try {
    await requireRole(request, 'admin');
    return Response.json({ users: await listUsers(await getDb()) }, { headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}

/**
 * `{ email, name?, role, password? | generatePassword? }`: a generated password is in this answer only; without a
 * password the user signs in through the OpenID provider only.
 */
export async function POST(request: Request) {
  try {
    const principal = await requireRole(request, 'admin');
    const { generatePassword: generate, ...input } = userInputSchema.parse(await readJsonBody(request, 8192));
    const generatedPassword = generate ? generatePassword() : undefined;
    const result = await createUser(await getDb(), { ...input, password: generatedPassword ?? input.password });
    await audit(request, principal, { action: 'user.create', target: `user ${result.id} (${result.email})`, detail: { role: result.role } });
    return Response.json(generatedPassword ? { ...result, generatedPassword } : result, { status: 201, headers: { 'Cache-Control': 'no-store' } });
  } catch (err) {
    return toErrorResponse(err);
  }
}
