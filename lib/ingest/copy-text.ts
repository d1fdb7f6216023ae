import type { CellValue, TableRows } from './report-rows';
import { pgArrayLiteral } from './write-plan';

const NEEDS_ESCAPE = /[\\\n\r\t]/;

// COPY text format: backslash, newline, carriage return and tab must be escaped; \N is NULL.
function escapeText(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(/[\\\n\r\t]/g, (c) => (c === '\\' ? '\\\\' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\t'));
}

function encodeCell(value: CellValue): string {
  if (value === null) return '\\N';
  switch (typeof value) {
    case 'number':
      return String(value);
    case 'string':
      return escapeText(value);
    case 'boolean':
      return value ? 't' : 'f';
    default:
      return escapeText(pgArrayLiteral(value));
  }
}

/** The rows as COPY … FROM STDIN text: one line per row, tab-separated. */
export function toCopyText(rows: TableRows): string {
  const { width, values } = rows;
  let out = '';
  for (let i = 0; i < values.length; i += width) {
    let line = encodeCell(values[i]!);
    for (let c = 1; c < width; c++) line += '\t' + encodeCell(values[i + c]!);
    out += line + '\n';
  }
  return out;
}
