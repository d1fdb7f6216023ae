import { artefactResponse } from '@/lib/agent-delivery/artefact-response';
import { checksumLine, readAgentBundle } from '@/lib/agent-delivery/bundle';
import { route } from '@/lib/http/route';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The bundle's SHA-256 in `sha256sum` format, which install.sh and `--upgrade` check the download against. */
export const GET = route({
  handle: async ({ request }) =>
    artefactResponse(request, { body: checksumLine(await readAgentBundle(process.cwd())), contentType: 'text/plain; charset=utf-8' }),
});
