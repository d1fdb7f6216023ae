import { acknowledgeAlert, clearAcknowledgement } from '@/lib/alerts';
import { getDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { acknowledgeAlertInputSchema, idPathSchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Acknowledges an unresolved alert: `{ "by": "oncall", "comment": "..." }`. */
export const PUT = route({
  role: 'editor',
  params: idPathSchema,
  body: acknowledgeAlertInputSchema,
  handle: async ({ params, body }) => acknowledgeAlert(await getDb(), params.id, body),
  audit: ({ params }) => ({ action: 'alert.acknowledge', target: `alert ${params.id}` }),
});

export const DELETE = route({
  role: 'editor',
  params: idPathSchema,
  handle: async ({ params }) => clearAcknowledgement(await getDb(), params.id),
  audit: ({ params }) => ({ action: 'alert.unacknowledge', target: `alert ${params.id}` }),
});
