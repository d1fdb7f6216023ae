import { z } from 'zod';
import { isoTimeSchema, labelValuesSchema } from './response-fields';

/** The admin API as the dashboard sees it: enrollment keys and re-enrollment approvals. Client-safe. */
export const enrollmentKeySchema = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  /** The first characters of the key, to tell keys apart; the key itself is shown once, at creation. */
  tokenPrefix: z.string(),
  region: z.string(),
  labels: labelValuesSchema,
  createdAt: isoTimeSchema,
  expiresAt: isoTimeSchema.nullable(),
  revokedAt: isoTimeSchema.nullable(),
  maxHosts: z.number().int().nullable().meta({ description: 'How many hosts the key may enroll; null: no cap.' }),
});
export type EnrollmentKeyView = z.infer<typeof enrollmentKeySchema>;

export const createdEnrollmentKeySchema = enrollmentKeySchema.extend({
  key: z.string().meta({ description: 'The plaintext key (`iwk_…`): shown in this response only.' }),
});
export type CreatedEnrollmentKeyView = z.infer<typeof createdEnrollmentKeySchema>;

/** POST /api/v1/admin/hosts/{id}/reenroll-approval: the host's next enrollment needs no proof until approvedUntil. */
export const reenrollApprovalSchema = z.strictObject({
  hostId: z.number().int(),
  hostname: z.string(),
  region: z.string(),
  approvedUntil: isoTimeSchema.meta({ description: 'The one enrollment without proof must come before this.' }),
});
export type ReenrollApproval = z.infer<typeof reenrollApprovalSchema>;
