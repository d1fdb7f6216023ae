import { artefactResponse } from '@/lib/agent-delivery/artefact-response';
import { readInstallScript } from '@/lib/agent-delivery/install-script';
import { route } from '@/lib/http/route';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The agent installer the Settings page's one-liner runs. Public: it holds no secret (the key comes on its stdin). */
export const GET = route({
  handle: async ({ request }) => artefactResponse(request, { body: await readInstallScript(process.cwd()), contentType: 'text/x-shellscript; charset=utf-8' }),
});
