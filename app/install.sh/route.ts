import { artefactResponse } from '@/lib/agent-delivery/artefact-response';
import { readInstallScript } from '@/lib/agent-delivery/install-script';
import { toErrorResponse } from '@/lib/errors';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The agent installer the Settings page's one-liner runs. Public: it holds no secret (the key comes on its stdin). */
export async function GET(request: Request) {
  try {
    const script = await readInstallScript(process.cwd());
    return artefactResponse(request, { body: script, contentType: 'text/x-shellscript; charset=utf-8' });
  } catch (err) {
    return toErrorResponse(err);
  }
}
