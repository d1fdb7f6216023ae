import { z } from 'zod';

export const errorDetailSchema = z.strictObject({
  /** The offending field, dotted (`reports.0.ts`), or `(root)`. */
  path: z.string(),
  message: z.string(),
});
export type ErrorDetail = z.infer<typeof errorDetailSchema>;

/** The one error envelope every endpoint answers with: `{ "error": { "code", "message", "details"? } }`. */
export const errorEnvelopeSchema = z
  .strictObject({
    error: z.strictObject({
      code: z.string().meta({ examples: ['invalid_payload', 'unauthorized', 'not_found'] }),
      message: z.string(),
      details: z.array(errorDetailSchema).optional(),
    }),
  })
  .meta({ description: 'The one error shape: `details` names each offending field as a dotted path.' });
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/**
 * The code of ingest's 401 for a host token the server has no record of (never issued, replaced by a re-enrollment,
 * or a database that is not the one that issued it): an agent holding an enrollment key may enroll again.
 * A revoked token answers plain `unauthorized`, which enrolling cannot fix.
 */
export const UNKNOWN_HOST_TOKEN = 'unknown_host_token';
