import type { Sql } from '../../lib/db/sql';

/**
 * A test's or benchmark's own read, typed as its assertions expect. Stores check their rows with queryRows; here the
 * assertions that follow check the values, so naming the expected shape is enough.
 */
export async function rowsOf<Row>(sql: Pick<Sql, 'query'>, text: string, params?: unknown[]): Promise<Row[]> {
  return (await sql.query(text, params)) as Row[];
}
