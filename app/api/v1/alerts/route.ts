import { listAlerts } from '@/lib/alerts';
import { getReadDb } from '@/lib/db';
import { route } from '@/lib/http/route';
import { alertsQuerySchema } from '@/lib/protocol/alerts';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Alerts: `state=active` (pending and firing, the default), `firing`, `pending`, `resolved` or `all` (history). */
export const GET = route({
  role: 'viewer',
  query: alertsQuerySchema,
  handle: async ({ query }) => listAlerts(await getReadDb(), query),
});
