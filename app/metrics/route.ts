import { route } from '@/lib/http/route';
import { servedMetrics } from '@/lib/server/served-metrics';

export const dynamic = 'force-dynamic';

export const GET = route({
  role: 'viewer',
  handle: async () => {
    const registry = servedMetrics();
    return new Response(await registry.metrics(), { headers: { 'Content-Type': registry.contentType } });
  },
});
