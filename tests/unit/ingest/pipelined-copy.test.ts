import { describe, expect, test } from 'vitest';
import { BinaryWriter, writeBinaryTuples } from '../../../lib/ingest/write/group-commit/copy-binary';
import { encodePipelinedMessage, type CopyData } from '../../../lib/ingest/write/group-commit/pipelined-copy';

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const TS = Date.UTC(2026, 10, 29, 12, 0, 0, 250);
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const DEVICE = 'nvme0n1 «größe» 日本 🚀';

interface Message {
  type: string;
  /** The length field: the message without its type byte. */
  length: number;
  body: Buffer;
}

/** Splits a buffer into protocol messages, checking that each length field lands exactly on the next message. */
function messages(buffer: Buffer): Message[] {
  const out: Message[] = [];
  let pos = 0;
  while (pos < buffer.length) {
    expect(buffer.length - pos).toBeGreaterThanOrEqual(5);
    const type = String.fromCharCode(buffer[pos]!);
    const length = buffer.readInt32BE(pos + 1);
    expect(length).toBeGreaterThanOrEqual(4);
    const end = pos + 1 + length;
    expect(end).toBeLessThanOrEqual(buffer.length);
    out.push({ type, length, body: buffer.subarray(pos + 5, end) });
    pos = end;
  }
  return out;
}

/** The tuples of COPY BINARY data, each field as its bytes (null for NULL); checks header, trailer and that nothing follows. */
function copyTuples(data: Buffer): (Buffer | null)[][] {
  expect(data.subarray(0, 11).equals(SIGNATURE)).toBe(true);
  expect(data.readInt32BE(11)).toBe(0);
  expect(data.readInt32BE(15)).toBe(0);
  const tuples: (Buffer | null)[][] = [];
  let pos = 19;
  for (;;) {
    const fields = data.readInt16BE(pos);
    pos += 2;
    if (fields === -1) break;
    const tuple: (Buffer | null)[] = [];
    for (let i = 0; i < fields; i++) {
      const length = data.readInt32BE(pos);
      pos += 4;
      if (length === -1) tuple.push(null);
      else {
        tuple.push(data.subarray(pos, pos + length));
        pos += length;
      }
    }
    tuples.push(tuple);
  }
  expect(pos).toBe(data.length);
  return tuples;
}

const ledger = (rows: [number, number, number][]): CopyData => ({
  statement: 'COPY report_ledger (host_id, seq, ts) FROM STDIN (FORMAT binary)',
  writeTuples: (w) => writeBinaryTuples(w, { width: 3, values: rows.flat() }, ['int4', 'int8', 'timestamptz']),
});

const disks = (rows: [number, string, number | null][]): CopyData => ({
  statement: 'COPY disk_samples (host_id, device, util_pct) FROM STDIN (FORMAT binary)',
  writeTuples: (w) => writeBinaryTuples(w, { width: 3, values: rows.flat() }, ['int4', 'text', 'float4']),
});

describe('encodePipelinedMessage', () => {
  test('frames a Query with every statement, then CopyData and CopyDone for each COPY, every length exact', () => {
    const leading = ['SET LOCAL statement_timeout = 5000'];
    const trailing = ["SELECT 'überall'", 'COMMIT'];
    const copies = [ledger([[7, 5_000_000_000, TS], [7, 5_000_000_001, TS + 10_000]]), disks([[7, DEVICE, 12.5], [7, 'vda', null]])];
    const out = encodePipelinedMessage(new BinaryWriter(), copies, trailing, leading);

    const [query, ledgerData, ledgerDone, diskData, diskDone, ...rest] = messages(out);
    expect(rest).toEqual([]);

    const sql = [
      'SET LOCAL statement_timeout = 5000',
      'COPY report_ledger (host_id, seq, ts) FROM STDIN (FORMAT binary)',
      'COPY disk_samples (host_id, device, util_pct) FROM STDIN (FORMAT binary)',
      "SELECT 'überall'",
      'COMMIT',
    ].join(';\n');
    expect(query!.type).toBe('Q');
    expect(query!.length).toBe(4 + Buffer.byteLength(sql) + 1);
    expect(query!.body.at(-1)).toBe(0);
    expect(query!.body.subarray(0, -1).toString('utf8')).toBe(sql);

    expect(ledgerData!.type).toBe('d');
    expect(ledgerData!.length).toBe(4 + 19 + 2 * (2 + 8 + 12 + 12) + 2);
    const ledgerRows = copyTuples(ledgerData!.body);
    expect(ledgerRows.map(([host, seq, ts]) => [host!.readInt32BE(), Number(seq!.readBigInt64BE()), Number(ts!.readBigInt64BE())])).toEqual([
      [7, 5_000_000_000, (TS - PG_EPOCH_MS) * 1000],
      [7, 5_000_000_001, (TS + 10_000 - PG_EPOCH_MS) * 1000],
    ]);

    expect(diskData!.type).toBe('d');
    const deviceBytes = Buffer.byteLength(DEVICE);
    expect(deviceBytes).toBeGreaterThan(DEVICE.length);
    expect(diskData!.length).toBe(4 + 19 + (2 + 8 + 4 + deviceBytes + 8) + (2 + 8 + 4 + 3 + 4) + 2);
    const diskRows = copyTuples(diskData!.body);
    expect(diskRows.map(([host, device, util]) => [host!.readInt32BE(), device!.toString('utf8'), util && util.readFloatBE()])).toEqual([
      [7, DEVICE, 12.5],
      [7, 'vda', null],
    ]);

    for (const done of [ledgerDone!, diskDone!]) expect(done).toEqual({ type: 'c', length: 4, body: Buffer.alloc(0) });
  });

  test('without copies the message is the Query alone', () => {
    const out = encodePipelinedMessage(new BinaryWriter(), [], ['COMMIT']);
    expect(out.equals(Buffer.from([0x51, 0, 0, 0, 11, ...Buffer.from('COMMIT'), 0]))).toBe(true);
  });

  test('re-encoding into the writer of a bigger message gives a correct, shorter message', () => {
    const w = new BinaryWriter(64);
    const manyRows = Array.from({ length: 2_000 }, (_, i): [number, string, number] => [i, `${DEVICE} ${i}`, i / 4]);
    const big = encodePipelinedMessage(w, [ledger([[1, 1, TS]]), disks(manyRows)], ['COMMIT'], ['SET LOCAL statement_timeout = 5000']);
    const bigLength = big.length;
    expect(w.buf.length).toBeGreaterThanOrEqual(bigLength);

    const smallArgs = [[disks([[2, DEVICE, 1.5]])], ["SELECT 'ünïcode'"]] as const;
    const small = encodePipelinedMessage(w, ...smallArgs);
    expect(small.length).toBeLessThan(bigLength);
    expect(small.equals(encodePipelinedMessage(new BinaryWriter(), ...smallArgs))).toBe(true);

    const [query, data, done, ...rest] = messages(small);
    expect(rest).toEqual([]);
    expect(query!.body.toString('utf8')).toBe("COPY disk_samples (host_id, device, util_pct) FROM STDIN (FORMAT binary);\nSELECT 'ünïcode'\0");
    expect(copyTuples(data!.body).map(([host, device]) => [host!.readInt32BE(), device!.toString('utf8')])).toEqual([[2, DEVICE]]);
    expect(done).toEqual({ type: 'c', length: 4, body: Buffer.alloc(0) });
  });
});
