import { getReadDb } from '@/lib/db';
import { countDemoHosts } from '@/lib/fleet';
import { route } from '@/lib/http/route';
import { serverEnvironment } from '@/lib/server/environment';

export const dynamic = 'force-dynamic';

/** How many demo hosts (labelled demo=true) there are and how many report: the dashboard's demo banner. */
export const GET = route({
  role: 'viewer',
  handle: async () => countDemoHosts(await getReadDb(), { now: new Date(), staleAfterMs: serverEnvironment().staleAfterMs }),
});
