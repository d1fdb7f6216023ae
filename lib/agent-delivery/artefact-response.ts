import { createHash } from 'node:crypto';

export interface Artefact {
  body: string | Buffer;
  contentType: string;
  /** The body's SHA-256 in hex when the caller has it already (the bundle's is cached), else computed here. */
  sha256?: string;
}

/**
 * A public download: `no-cache` (a cache may keep it but must ask again, since an upgrade replaces it at the same
 * address) with the body's SHA-256 as ETag, so asking again costs a 304 when nothing changed.
 */
export function artefactResponse(request: Request, artefact: Artefact, headers: Record<string, string> = {}): Response {
  const sha256 = artefact.sha256 ?? createHash('sha256').update(artefact.body).digest('hex');
  const common = { ETag: `"${sha256}"`, 'Cache-Control': 'public, no-cache', ...headers };
  const ifNoneMatch = request.headers.get('if-none-match');
  if (ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === common.ETag)) {
    return new Response(null, { status: 304, headers: common });
  }
  const body = typeof artefact.body === 'string' ? Buffer.from(artefact.body) : artefact.body;
  return new Response(new Uint8Array(body), {
    headers: { ...common, 'Content-Type': artefact.contentType, 'Content-Length': String(body.length) },
  });
}
