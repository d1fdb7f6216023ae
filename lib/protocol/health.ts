import { z } from 'zod';

/** GET /api/health: whether the server and its database answer. */
export const healthReportSchema = z.strictObject({
  status: z.enum(['ok', 'degraded']),
  version: z.string(),
  database: z.strictObject({
    kind: z.enum(['server', 'embedded']),
    ok: z.boolean(),
    latencyMs: z.number().nullable(),
    error: z.string().optional(),
  }),
});
export type HealthReport = z.infer<typeof healthReportSchema>;
