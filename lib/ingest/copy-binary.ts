import type { CellValue, TableRows } from './report-rows';
import type { ColumnType } from './table-specs';

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const PG_EPOCH_MS = 946_684_800_000;
const TWO_32 = 4_294_967_296;
const ELEMENT_OID: Partial<Record<ColumnType, number>> = { 'int2[]': 21, 'int8[]': 20 };

/** A growable big-endian buffer for COPY BINARY. */
class BinaryWriter {
  buf = Buffer.allocUnsafe(16_384);
  pos = 0;

  ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }
  int16(v: number): void {
    this.ensure(2);
    this.pos = this.buf.writeInt16BE(v, this.pos);
  }
  int32(v: number): void {
    this.ensure(4);
    this.pos = this.buf.writeInt32BE(v, this.pos);
  }
  int64(v: number): void {
    this.ensure(8);
    const high = Math.floor(v / TWO_32);
    this.pos = this.buf.writeInt32BE(high, this.pos);
    this.pos = this.buf.writeUInt32BE(v - high * TWO_32, this.pos);
  }
}

let lastTsText = '';
let lastTsMs = 0;

// Rows carry timestamps as ISO text (what unnest and COPY text take); the rows of one report share one string.
function timestampMs(value: CellValue): number {
  if (typeof value === 'number') return value;
  if (value !== lastTsText) {
    lastTsText = value as string;
    lastTsMs = Date.parse(lastTsText);
  }
  return lastTsMs;
}

function writeCell(w: BinaryWriter, type: ColumnType, value: CellValue): void {
  if (value === null) return w.int32(-1);
  switch (type) {
    case 'int2':
      w.int32(2);
      return w.int16(value as number);
    case 'int4':
      w.int32(4);
      return w.int32(value as number);
    case 'int8':
      w.int32(8);
      return w.int64(value as number);
    case 'float4':
      w.ensure(8);
      w.pos = w.buf.writeInt32BE(4, w.pos);
      w.pos = w.buf.writeFloatBE(value as number, w.pos);
      return;
    case 'float8':
      w.ensure(12);
      w.pos = w.buf.writeInt32BE(8, w.pos);
      w.pos = w.buf.writeDoubleBE(value as number, w.pos);
      return;
    case 'bool':
      w.ensure(5);
      w.pos = w.buf.writeInt32BE(1, w.pos);
      w.buf[w.pos++] = value ? 1 : 0;
      return;
    case 'timestamptz':
      w.int32(8);
      return w.int64((timestampMs(value) - PG_EPOCH_MS) * 1000);
    case 'text': {
      const text = value as string;
      w.ensure(4 + text.length * 3);
      const lengthAt = w.pos;
      const written = w.buf.write(text, lengthAt + 4, 'utf8');
      w.buf.writeInt32BE(written, lengthAt);
      w.pos = lengthAt + 4 + written;
      return;
    }
    default:
      return writeArray(w, type, value as number[]);
  }
}

function writeArray(w: BinaryWriter, type: ColumnType, values: readonly number[]): void {
  const elementBytes = type === 'int2[]' ? 2 : 8;
  const oid = ELEMENT_OID[type]!;
  if (values.length === 0) {
    w.int32(12);
    w.int32(0);
    w.int32(0);
    return w.int32(oid);
  }
  w.int32(20 + values.length * (4 + elementBytes));
  w.int32(1);
  w.int32(0);
  w.int32(oid);
  w.int32(values.length);
  w.int32(1);
  for (const v of values) {
    w.int32(elementBytes);
    if (elementBytes === 2) w.int16(v);
    else w.int64(v);
  }
}

/** The tuples of `rows` in COPY BINARY form, without the file header and trailer. */
export function encodeBinaryTuples(rows: TableRows, types: readonly ColumnType[]): Buffer {
  const w = new BinaryWriter();
  const { width, values } = rows;
  for (let i = 0; i < values.length; i += width) {
    w.int16(width);
    for (let c = 0; c < width; c++) writeCell(w, types[c]!, values[i + c]!);
  }
  return w.buf.subarray(0, w.pos);
}

export const COPY_BINARY_HEADER = Buffer.concat([SIGNATURE, Buffer.alloc(8)]);
export const COPY_BINARY_TRAILER = Buffer.from([0xff, 0xff]);

/** The rows as `COPY … FROM STDIN (FORMAT binary)` data: no number formatting here, no number parsing in PostgreSQL. */
export function toCopyBinary(rows: TableRows, types: readonly ColumnType[]): Buffer {
  return Buffer.concat([COPY_BINARY_HEADER, encodeBinaryTuples(rows, types), COPY_BINARY_TRAILER]);
}
