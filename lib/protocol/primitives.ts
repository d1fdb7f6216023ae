import { z } from 'zod';

// zod 4's z.number() already rejects NaN and ±Infinity, so every number here is finite.
export const pctSchema = z.number().min(0).max(100);
export const nonNegativeSchema = z.number().min(0);
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
