import { z } from 'zod';
import type { Sql } from './sql';

/**
 * A row that does not have the shape its store declares: a migration renamed or retyped a column, or a query and its
 * schema drifted apart. A bug, never the caller's fault, so it surfaces as a 500 naming the query's table.
 */
export class RowShapeError extends Error {
  constructor(what: string, issues: z.core.$ZodIssue[]) {
    const first = issues[0];
    super(`a ${what} row does not have its declared shape: ${first ? `${first.path.join('.') || '(row)'}: ${first.message}` : 'unknown'}`);
    this.name = 'RowShapeError';
  }
}

/**
 * Runs a query and checks every row against `row` where it leaves the database, so a store's types are proven
 * rather than cast. Both drivers already hand back jsonb parsed, int8 as a number (lib/db/open.ts) and timestamptz as
 * a Date; the column schemas below say so once.
 */
export async function queryRows<S extends z.ZodType>(
  sql: Pick<Sql, 'query'>,
  what: string,
  row: S,
  text: string,
  params?: unknown[],
): Promise<z.output<S>[]> {
  return checkRows(what, row, await sql.query(text, params));
}

/** Rows a driver handed back itself (a dedicated pg connection), checked as queryRows checks its own. */
export function checkRows<S extends z.ZodType>(what: string, row: S, rows: readonly unknown[]): z.output<S>[] {
  return rows.map((raw) => {
    const parsed = row.safeParse(raw);
    if (!parsed.success) throw new RowShapeError(what, parsed.error.issues);
    return parsed.data;
  });
}

/** The first row, or undefined. */
export async function queryRow<S extends z.ZodType>(
  sql: Pick<Sql, 'query'>,
  what: string,
  row: S,
  text: string,
  params?: unknown[],
): Promise<z.output<S> | undefined> {
  return (await queryRows(sql, what, row, text, params))[0];
}

/** Column types as the database returns them. */
export const column = {
  id: z.number().int(),
  /** int8 (bigint) columns: parsed to a number by lib/db/open.ts; every count inferwatch keeps fits a double. */
  int8: z.number(),
  timestamp: z.date(),
  /** float4/float8 columns that can hold ±Infinity (a histogram's min or max past its last finite bound); z.number() refuses it. */
  float: z.union([z.number(), z.literal(Infinity), z.literal(-Infinity)]),
  labels: z.record(z.string(), z.string()),
  /**
   * A jsonb document inferwatch wrote itself (an inventory, a webhook payload): checked to be an object, not
   * re-validated field by field, since older rows may predate fields the current schema requires.
   */
  document: <T extends object>() => z.custom<T>((value) => typeof value === 'object' && value !== null && !Array.isArray(value)),
} as const;
