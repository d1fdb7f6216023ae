import { generatePassword } from '@/lib/auth/passwords';
import { createUser, listUsers } from '@/lib/auth/users';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { userInputSchema } from '@/lib/protocol/auth';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const GET = route({ role: 'admin', handle: async () => ({ users: await listUsers(await getDb()) }) });

/**
 * `{ email, name?, role, password? | generatePassword? }`: a generated password is in this answer only; without a
 * password the user signs in through the OpenID provider only.
 */
export const POST = route({
  role: 'admin',
  body: userInputSchema,
  bodyMaxBytes: 8192,
  status: 201,
  handle: async ({ body: { generatePassword: generate, ...input } }) => {
    const generatedPassword = generate ? generatePassword() : undefined;
    const result = await createUser(await getDb(), { ...input, password: generatedPassword ?? input.password });
    return generatedPassword ? { ...result, generatedPassword } : result;
  },
  audit: (_, user) => ({ action: 'user.create', target: `user ${user.id} (${user.email})`, detail: { role: user.role } }),
});
