/** The one error envelope every endpoint answers with: `{ "error": { "code", "message", "details"? } }`. */
export interface ErrorDetail {
  /** The offending field, dotted (`reports.0.ts`), or `(root)`. */
  path: string;
  message: string;
}

export interface ErrorEnvelope {
  error: { code: string; message: string; details?: ErrorDetail[] };
}
