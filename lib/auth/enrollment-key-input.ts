import { z } from 'zod';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../protocol/time';

const labelKey = z.string().min(1).max(100).regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only');

export const enrollmentKeyInputSchema = z.object({
  name: z.string().min(1).max(200),
  region: z.string().min(1).max(100).regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . - only'),
  labels: z.record(labelKey, z.string().max(200)).default({}),
  expiresAt: z.coerce.date().nullable().optional(),
  /** At most this many hosts may enroll with the key (re-enrolling one of them does not count again). */
  maxHosts: z.number().int().min(1).max(1_000_000).nullable().optional(),
});
export type EnrollmentKeyRequest = z.infer<typeof enrollmentKeyInputSchema>;

export const enrollmentKeyIdSchema = z.coerce.number().int().positive();

const DURATION_UNITS_MS: Record<string, number> = { m: MINUTE_MS, h: HOUR_MS, d: DAY_MS };

/** "30d", "12h", "45m" → milliseconds. */
export function parseDurationMs(text: string): number {
  const match = /^(\d+)([mhd])$/.exec(text.trim());
  if (!match) throw new Error(`invalid duration "${text}": use e.g. 30d, 12h or 45m`);
  return Number(match[1]) * DURATION_UNITS_MS[match[2]!]!;
}
