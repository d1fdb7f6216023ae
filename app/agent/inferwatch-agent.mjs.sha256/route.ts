import { artefactResponse } from '@/lib/agent-delivery/artefact-response';
import { checksumLine, readAgentBundle } from '@/lib/agent-delivery/bundle';
import { toErrorResponse } from '@/lib/errors';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The bundle's SHA-256 in `sha256sum` format, which install.sh and `--upgrade` check the download against. */
export async function GET(request: Request) {
  try {
    return artefactResponse(request, { body: checksumLine(await readAgentBundle(process.cwd())), contentType: 'text/plain; charset=utf-8' });
  } catch (err) {
    return toErrorResponse(err);
  }
}
