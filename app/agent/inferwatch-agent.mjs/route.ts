import { artefactResponse } from '@/lib/agent-delivery/artefact-response';
import { readAgentBundle } from '@/lib/agent-delivery/bundle';
import { route } from '@/lib/http/route';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The single-file agent this server was built with, for install.sh and `inferwatch-agent --upgrade`. Public: no secret in it. */
export const GET = route({
  handle: async ({ request }) => {
    const bundle = await readAgentBundle(process.cwd());
    return artefactResponse(
      request,
      { body: bundle.bytes, contentType: 'text/javascript; charset=utf-8', sha256: bundle.sha256 },
      { 'X-Checksum-SHA256': bundle.sha256 },
    );
  },
});
