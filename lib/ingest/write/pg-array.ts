function arrayElement(value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  return `"${String(value).replace(/[\\"]/g, '\\$&')}"`;
}

/** PostgreSQL array literal of numbers, strings or nulls, e.g. {1,NULL} or {"a","b\"c"}. */
export function pgArrayLiteral(values: readonly unknown[]): string {
  return `{${values.map(arrayElement).join(',')}}`;
}

/**
 * Substitutes $n placeholders whose values are arrays with quoted literals, for statements that must travel inside
 * a multi-statement simple-protocol message (which has no parameters).
 */
export function inlineArrayParams(sql: string, params: readonly unknown[], escapeLiteral: (text: string) => string): string {
  return sql.replace(/\$(\d+)/g, (_, index: string) => escapeLiteral(pgArrayLiteral(params[Number(index) - 1] as unknown[])));
}
