import { getDb } from '@/lib/db';
import { checkHealth } from '@/lib/health';
import { serverEnvironment } from '@/lib/server/environment';

export const dynamic = 'force-dynamic';

export async function GET() {
  const health = await checkHealth(getDb, serverEnvironment().database);
  return Response.json(health, {
    status: health.status === 'ok' ? 200 : 503,
    headers: { 'Cache-Control': 'no-store' },
  });
}
