import { getDb } from '@/lib/db';
import { acknowledgeFinding, clearAcknowledgement } from '@/lib/findings/read/list-findings';
import { route } from '@/lib/http/route';
import { acknowledgeInputSchema, findingPathSchema } from '@/lib/protocol/findings';

export const dynamic = 'force-dynamic';

/** Acknowledges the finding: `{ "reason": "...", "expiresAt": "2026-12-08T00:00:00Z" }`. */
export const PUT = route({
  role: 'editor',
  params: findingPathSchema,
  body: acknowledgeInputSchema,
  handle: async ({ params, body }) => acknowledgeFinding(await getDb(), params.id, body),
  audit: ({ params }) => ({ action: 'finding.acknowledge', target: `finding ${params.id}` }),
});

export const DELETE = route({
  role: 'editor',
  params: findingPathSchema,
  handle: async ({ params }) => clearAcknowledgement(await getDb(), params.id),
  audit: ({ params }) => ({ action: 'finding.unacknowledge', target: `finding ${params.id}` }),
});
