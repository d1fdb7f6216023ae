import type { CellValue, TableRows } from '../report-rows';
import type { ColumnType } from '../table-specs';

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const PG_EPOCH_MS = 946_684_800_000;
const TWO_32 = 4_294_967_296;

const ELEMENT_OID: Partial<Record<ColumnType, number>> = { 'int2[]': 21, 'int4[]': 23, 'float4[]': 700, 'float8[]': 701, 'text[]': 25 };
const ELEMENT_BYTES: Partial<Record<ColumnType, number>> = { 'int2[]': 2, 'int4[]': 4, 'float4[]': 4, 'float8[]': 8 };

// DataView wraps silently where Buffer threw: a value out of its column's range must still fail the flush.
function checkRange(v: number, min: number, max: number): void {
  if (v > max || v < min) throw new RangeError(`COPY BINARY value ${v} is outside ${min}…${max}`);
}

/**
 * A growable big-endian buffer for COPY BINARY and the protocol messages around it, reusable from one flush to the
 * next (fresh buffers per flush made V8 run full GCs for their external memory alone).
 * DataView setters: Buffer's writeInt32BE & co. range-check each call.
 */
export class BinaryWriter {
  buf: Buffer;
  view: DataView;
  pos = 0;

  constructor(initialBytes = 16_384) {
    this.buf = Buffer.allocUnsafe(initialBytes);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  }

  reset(): void {
    this.pos = 0;
  }

  /** What was written since the last reset, without copying. */
  written(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
    this.view = new DataView(bigger.buffer, bigger.byteOffset, bigger.length);
  }
  int16(v: number): void {
    checkRange(v, -32_768, 32_767);
    this.ensure(2);
    this.view.setInt16(this.pos, v);
    this.pos += 2;
  }
  int32(v: number): void {
    checkRange(v, -2_147_483_648, 2_147_483_647);
    this.ensure(4);
    this.view.setInt32(this.pos, v);
    this.pos += 4;
  }
  int64(v: number): void {
    this.ensure(8);
    const high = Math.floor(v / TWO_32);
    checkRange(high, -2_147_483_648, 2_147_483_647);
    this.view.setInt32(this.pos, high);
    this.view.setUint32(this.pos + 4, v - high * TWO_32);
    this.pos += 8;
  }
  byte(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }
  bytes(data: Uint8Array): void {
    this.ensure(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }
  utf8(text: string): void {
    this.ensure(text.length * 3);
    this.pos += this.buf.write(text, this.pos, 'utf8');
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
      w.view.setInt32(w.pos, 4);
      w.view.setFloat32(w.pos + 4, value as number);
      w.pos += 8;
      return;
    case 'float8':
      w.ensure(12);
      w.view.setInt32(w.pos, 8);
      w.view.setFloat64(w.pos + 4, value as number);
      w.pos += 12;
      return;
    case 'bool':
      w.ensure(5);
      w.view.setInt32(w.pos, 1);
      w.buf[w.pos + 4] = value ? 1 : 0;
      w.pos += 5;
      return;
    case 'timestamptz':
      w.int32(8);
      return w.int64((timestampMs(value) - PG_EPOCH_MS) * 1000);
    case 'text': {
      const text = value as string;
      w.ensure(4 + text.length * 3);
      const lengthAt = w.pos;
      const written = w.buf.write(text, lengthAt + 4, 'utf8');
      w.view.setInt32(lengthAt, written);
      w.pos = lengthAt + 4 + written;
      return;
    }
    default:
      return writeArray(w, type, value as number[] | string[]);
  }
}

function writeArrayHeader(w: BinaryWriter, type: ColumnType, length: number, bodyBytes: number): void {
  const oid = ELEMENT_OID[type]!;
  if (length === 0) {
    w.int32(12);
    w.int32(0);
    w.int32(0);
    return w.int32(oid);
  }
  w.int32(20 + bodyBytes);
  w.int32(1);
  w.int32(0);
  w.int32(oid);
  w.int32(length);
  w.int32(1);
}

function writeTextArray(w: BinaryWriter, values: readonly string[]): void {
  let bodyBytes = 0;
  for (const v of values) bodyBytes += 4 + Buffer.byteLength(v, 'utf8');
  writeArrayHeader(w, 'text[]', values.length, bodyBytes);
  for (const v of values) writeCell(w, 'text', v);
}

function writeArray(w: BinaryWriter, type: ColumnType, values: readonly number[] | readonly string[]): void {
  if (type === 'text[]') return writeTextArray(w, values as readonly string[]);
  const elementBytes = ELEMENT_BYTES[type]!;
  writeArrayHeader(w, type, values.length, values.length * (4 + elementBytes));
  if (values.length === 0) return;
  w.ensure(values.length * (4 + elementBytes));
  const numbers = values as readonly number[];
  const view = w.view;
  let pos = w.pos;
  // One loop per element type: the type is the same for every element, so it is not tested for each one.
  switch (type) {
    case 'float4[]':
      for (const v of numbers) {
        view.setInt32(pos, 4);
        view.setFloat32(pos + 4, v);
        pos += 8;
      }
      break;
    case 'float8[]':
      for (const v of numbers) {
        view.setInt32(pos, 8);
        view.setFloat64(pos + 4, v);
        pos += 12;
      }
      break;
    case 'int2[]':
      for (const v of numbers) {
        checkRange(v, -32_768, 32_767);
        view.setInt32(pos, 2);
        view.setInt16(pos + 4, v);
        pos += 6;
      }
      break;
    default:
      for (const v of numbers) {
        checkRange(v, -2_147_483_648, 2_147_483_647);
        view.setInt32(pos, 4);
        view.setInt32(pos + 4, v);
        pos += 8;
      }
  }
  w.pos = pos;
}

/** Appends the tuples of `rows` in COPY BINARY form, without the file header and trailer. */
export function writeBinaryTuples(w: BinaryWriter, rows: TableRows, types: readonly ColumnType[]): void {
  const { width, values } = rows;
  for (let i = 0; i < values.length; i += width) {
    w.int16(width);
    for (let c = 0; c < width; c++) writeCell(w, types[c]!, values[i + c]!);
  }
}

const COPY_BINARY_HEADER = Buffer.concat([SIGNATURE, Buffer.alloc(8)]);

/** Appends `COPY … FROM STDIN (FORMAT binary)` data: the header, the tuples `writeTuples` appends, the trailer. */
export function writeCopyBinaryFrame(w: BinaryWriter, writeTuples: () => void): void {
  w.bytes(COPY_BINARY_HEADER);
  writeTuples();
  w.int16(-1);
}
