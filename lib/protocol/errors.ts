/** The one error envelope every endpoint answers with: `{ "error": { "code", "message", "details"? } }`. */
export interface ErrorDetail {
  /** The offending field, dotted (`reports.0.ts`), or `(root)`. */
  path: string;
  message: string;
}

export interface ErrorEnvelope {
  error: { code: string; message: string; details?: ErrorDetail[] };
}

/**
 * The code of ingest's 401 for a host token the server has no record of (never issued, replaced by a re-enrollment,
 * or a database that is not the one that issued it): an agent holding an enrollment key may enroll again.
 * A revoked token answers plain `unauthorized`, which enrolling cannot fix.
 */
export const UNKNOWN_HOST_TOKEN = 'unknown_host_token';
