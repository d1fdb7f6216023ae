import { getDb } from '@/lib/db';
import { checkHealth } from '@/lib/health';
import { route } from '@/lib/http/route';
import { serverEnvironment } from '@/lib/server/environment';

export const dynamic = 'force-dynamic';

export const GET = route({
  handle: async () => {
    const health = await checkHealth(getDb, serverEnvironment().database);
    return Response.json(health, { status: health.status === 'ok' ? 200 : 503 });
  },
});
