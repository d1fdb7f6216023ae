import { z } from 'zod';
import { DAY_MS } from '../time';

/** Query-string pieces the read API's endpoint schemas are built from; shared by route handlers and client hooks. */
const MAX_RANGE_MS = 400 * DAY_MS;

export const instantSchema = z
  .string()
  .trim()
  .min(1)
  .transform((text, ctx) => {
    const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 time or milliseconds since the epoch' });
      return z.NEVER;
    }
    return new Date(ms);
  });

export const rangeShape = { from: instantSchema.optional(), to: instantSchema.optional() };

export function checkRange(value: { from?: Date; to?: Date }, ctx: z.core.$RefinementCtx) {
  if (value.from && value.to) {
    if (value.from.getTime() >= value.to.getTime()) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: 'must be before to' });
    } else if (value.to.getTime() - value.from.getTime() > MAX_RANGE_MS) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: 'range must be at most 400 days' });
    }
  }
}

export const regionSchema = z.string().trim().min(1).max(100);

export const hostIdSchema = z.coerce.number().int().positive().max(2_147_483_647);

export const labelsSchema = z
  .string()
  .trim()
  .min(1)
  .transform((text, ctx) => {
    const labels: Record<string, string> = {};
    for (const pair of text.split(',')) {
      const at = pair.indexOf(':');
      if (at <= 0) {
        ctx.addIssue({ code: 'custom', message: 'must be key:value pairs separated by commas' });
        return z.NEVER;
      }
      labels[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
    }
    return labels;
  });

/** URLSearchParams → plain object for zod (the first value of each key). */
export function searchParamsObject(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of params) if (!(key in out)) out[key] = value;
  return out;
}
