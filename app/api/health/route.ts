import { getDb } from '@/lib/db';
import { checkHealth } from '@/lib/health';
import { route } from '@/lib/http/route';

export const dynamic = 'force-dynamic';

export const GET = route({
  handle: async () => {
    const health = await checkHealth(getDb);
    return Response.json(health, { status: health.status === 'ok' ? 200 : 503 });
  },
});
