import { z } from 'zod';
import { DAY_MS, MINUTE_MS } from '../time';

/** Query-string pieces the read API's endpoint schemas are built from; shared by route handlers and client hooks. */
const MAX_RANGE_MS = 400 * DAY_MS;

// RFC 3339's profile of ISO 8601: a date, or a date and time with its zone; nothing Date.parse would guess at.
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2}))?$/;
const MAX_TIME_MS = 8.64e15;

type Six = [number, number, number, number, number, number];

function daysInMonth(year: number, month: number): number {
  const last = new Date(0);
  last.setUTCFullYear(year, month, 0);
  return last.getUTCDate();
}

/** Milliseconds since the epoch of an ISO 8601 time or of epoch milliseconds (digits only); null for anything else. */
function parseTime(text: string): number | null {
  if (/^\d+$/.test(text)) {
    const ms = Number(text);
    return ms <= MAX_TIME_MS ? ms : null;
  }
  const match = ISO_TIME.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as Six;
  const fractionMs = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
  const zone = match[8] ?? 'Z';
  const [offsetHours, offsetMinutes] = zone === 'Z' ? [0, 0] : [Number(zone.slice(1, 3)), Number(zone.slice(4, 6))];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, fractionMs);
  const offsetMs = (zone.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * MINUTE_MS;
  return utc.getTime() - offsetMs;
}

export const timeParamSchema = z.string().transform((text, ctx) => {
  const ms = parseTime(text);
  if (ms === null) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be an ISO 8601 time (2026-01-31, 2026-01-31T12:00:00Z, 2026-01-31T14:00:00+02:00) or milliseconds since the epoch',
    });
    return z.NEVER;
  }
  return new Date(ms);
}).meta({ description: 'An ISO 8601 time (2026-01-31, 2026-01-31T12:00:00Z, 2026-01-31T14:00:00+02:00) or milliseconds since the epoch.' });

export const rangeShape = { from: timeParamSchema.optional(), to: timeParamSchema.optional() };

export function checkRange(value: { from?: Date; to?: Date }, ctx: z.core.$RefinementCtx) {
  if (value.from && value.to) {
    if (value.from.getTime() >= value.to.getTime()) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: 'must be before to' });
    } else if (value.to.getTime() - value.from.getTime() > MAX_RANGE_MS) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: 'range must be at most 400 days' });
    }
  }
}

/** Fills in what a query left out: `to` is now, `from` is `spanMs` before `to`. */
export function withDefaultRange(spanMs: number) {
  return <T extends { from?: Date; to?: Date }>(value: T): T & { from: Date; to: Date } => {
    const to = value.to ?? new Date();
    return { ...value, to, from: value.from ?? new Date(to.getTime() - spanMs) };
  };
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
  })
  .meta({ description: '`key:value` pairs separated by commas: hosts whose labels include all of them.' });

/** URLSearchParams → plain object for zod (the first value of each key). */
export function searchParamsObject(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of params) if (!(key in out)) out[key] = value;
  return out;
}
