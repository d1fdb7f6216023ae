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

/**
 * What one read may cost, whatever endpoint serves it: the time it covers, the hosts times that time it reads, and the
 * points it answers with. Checked by readCostIssue at parse time, and again by a read whose hosts are known only once
 * its scope (a region, labels, the fleet) is matched. Reads past this are refused with 400, not attempted.
 */
export const READ_BUDGET = {
  maxRangeMs: MAX_RANGE_MS,
  /** hosts × days of range (e.g. 125 hosts over 400 days, 1,600 over 30). */
  maxHostDays: 50_000,
  /** Series × points per series in one response. */
  maxPoints: 100_000,
} as const;

export interface ReadExtent {
  /** When `to` is not given, the read ends now. */
  from?: Date;
  to?: Date;
  /** How many hosts the read covers, when known. */
  hosts?: number;
  /** How many points it answers with, when known. */
  points?: number;
}

export interface ReadCostIssue {
  path: 'from' | 'hosts' | 'points';
  message: string;
}

/** The first way `extent` breaks READ_BUDGET, or null. */
export function readCostIssue(extent: ReadExtent, nowMs = Date.now()): ReadCostIssue | null {
  if (extent.from) {
    const toMs = extent.to?.getTime() ?? nowMs;
    const fromMs = extent.from.getTime();
    if (fromMs >= toMs) return { path: 'from', message: extent.to ? 'must be before to' : 'must be before to (now, when to is not given)' };
    if (toMs - fromMs > READ_BUDGET.maxRangeMs) {
      return { path: 'from', message: `range must be at most ${READ_BUDGET.maxRangeMs / DAY_MS} days${extent.to ? '' : ' (to is now when not given)'}` };
    }
    const hostDays = extent.hosts === undefined ? 0 : (extent.hosts * (toMs - fromMs)) / DAY_MS;
    if (hostDays > READ_BUDGET.maxHostDays) {
      const days = Math.round((toMs - fromMs) / DAY_MS);
      return {
        path: 'hosts',
        message: `${extent.hosts} hosts over ${days} days: ${Math.round(hostDays)} host-days, more than ${READ_BUDGET.maxHostDays}; narrow the range or the hosts`,
      };
    }
  }
  if (extent.points !== undefined && extent.points > READ_BUDGET.maxPoints) {
    return { path: 'points', message: `the answer would hold ${extent.points} points, more than ${READ_BUDGET.maxPoints}: ask for fewer hosts or points` };
  }
  return null;
}

/**
 * The read budget as a zod refinement: `hosts` and `points` say how a schema's own fields count, and `paths` which
 * field an issue names.
 */
type Ranged<T> = T & { from?: Date; to?: Date };

export function checkReadCost<T extends object = object>(
  counts: { hosts?: (value: T) => number | undefined; points?: (value: T) => number | undefined; paths?: Partial<Record<ReadCostIssue['path'], string>> } = {},
) {
  return (value: Ranged<T>, ctx: z.core.$RefinementCtx) => {
    const issue = readCostIssue({ from: value.from, to: value.to, hosts: counts.hosts?.(value), points: counts.points?.(value) });
    if (issue) ctx.addIssue({ code: 'custom', path: [counts.paths?.[issue.path] ?? issue.path], message: issue.message });
  };
}

/** The range rule alone (at most 400 days; `to` is now when only `from` is given), for reads of one host or a list. */
export const checkRange = checkReadCost();

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
