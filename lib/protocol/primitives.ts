import { z } from 'zod';

// zod 4's z.number() already rejects NaN and ±Infinity, so every number here is finite.
export const pctSchema = z.number().min(0).max(100);

/**
 * The largest measurement a report may carry (an exabyte, 10^18 per second): far past any host, and far enough from
 * float4's 3.4e38 and float8's 1.8e308 that storing it, and summing a fleet's worth of it in the rollups, cannot
 * overflow. Past it a float4 column stored Infinity and the rollups failed for every host.
 */
export const MAX_MEASUREMENT = 1e18;
export const measurementSchema = z.number().min(-MAX_MEASUREMENT).max(MAX_MEASUREMENT);
export const nonNegativeSchema = z.number().min(0).max(MAX_MEASUREMENT);
export const countSchema = z.number().int().min(0);
export const nameSchema = z.string().min(1).max(200);

export const unavailableSchema = z.object({
  unavailable: z.string().min(1).max(500),
});
export type Unavailable = z.infer<typeof unavailableSchema>;

/** A collector's result: its data, or the reason it could not be read — never zeros. */
export function orUnavailable<T extends z.ZodType>(schema: T) {
  return z.union([schema, unavailableSchema]);
}

export function isUnavailable(value: unknown): value is Unavailable {
  return typeof value === 'object' && value !== null && 'unavailable' in value;
}

const MAX_NUL_ISSUES = 20;

/**
 * Each string (and object key) in a parsed value that holds a NUL, by its path; at most `max`. It runs on every
 * ingested report, whose arrays hold thousands of numbers: one path stack, copied only for a NUL found.
 */
function nulPaths(value: unknown, path: (string | number)[], found: (string | number)[][], max: number): void {
  if (typeof value === 'string') {
    if (value.includes('\0') && found.length < max) found.push([...path]);
    return;
  }
  if (typeof value !== 'object' || value === null || found.length >= max) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item !== 'string' && (typeof item !== 'object' || item === null)) continue;
      path.push(i);
      nulPaths(item, path, found, max);
      path.pop();
    }
    return;
  }
  for (const key in value) {
    path.push(key);
    if (key.includes('\0') && found.length < max) found.push([...path]);
    nulPaths((value as Record<string, unknown>)[key], path, found, max);
    path.pop();
  }
}

/**
 * The one rule for every string the agent sends: no NUL (U+0000). PostgreSQL's text values and its simple-query
 * messages cannot carry one, so it is refused here, naming the field, rather than failing a write shared with others.
 */
export function refuseNul<T extends z.ZodType>(schema: T): T {
  return schema.check((ctx) => {
    const found: (string | number)[][] = [];
    nulPaths(ctx.value, [], found, MAX_NUL_ISSUES);
    for (const path of found) ctx.issues.push({ code: 'custom', message: 'must not contain a NUL character (\\u0000)', input: ctx.value, path });
  }) as T;
}
