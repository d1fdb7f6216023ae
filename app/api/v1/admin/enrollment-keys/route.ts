import { createEnrollmentKey, listEnrollmentKeys } from '@/lib/auth/enrollment-keys';
import { enrollmentKeyInputSchema } from '@/lib/auth/enrollment-key-input';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const GET = route({ role: 'admin', handle: async () => ({ keys: await listEnrollmentKeys(await getDb()) }) });

/** Creates a key; the plaintext `key` is in this response only. */
export const POST = route({
  role: 'admin',
  body: enrollmentKeyInputSchema,
  status: 201,
  handle: async ({ body }) => createEnrollmentKey(await getDb(), body),
  audit: (_, key) => ({ action: 'enrollment-key.create', target: `enrollment key ${key.name} (${key.region})` }),
});
