import { readSloStatus } from '@/lib/alerts/read/slo-status';
import { getReadDb } from '@/lib/db';
import { route } from '@/lib/http/route';

export const dynamic = 'force-dynamic';

export const GET = route({ role: 'viewer', handle: async () => readSloStatus((await getReadDb()).sql, new Date()) });
