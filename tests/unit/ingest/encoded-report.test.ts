import { describe, expect, test } from 'vitest';
import { realisticReport } from '../../../bench/_ingest-report';
import { reportToRows } from '../../../bench/_ingest-encoding';
import { BinaryWriter } from '../../../lib/ingest/write/group-commit/copy-binary';
import { encodeReport, hasTableRows, writeTableTuples } from '../../../lib/ingest/write/group-commit/encoded-report';
import { SERIES_KINDS, SERIES_SPECS } from '../../../lib/ingest/write/table-specs';
import { encodeBinaryTuples } from '../../support/copy-tuples';

const T0 = Date.UTC(2026, 10, 30, 12);

function tuplesOf(report: ReturnType<typeof encodeReport>, kind: (typeof SERIES_KINDS)[number]): Buffer {
  const w = new BinaryWriter(16);
  writeTableTuples(w, report, kind);
  return Buffer.from(w.written());
}

describe('encodeReport', () => {
  test("each table's tuples are the bytes its rows encode to on their own, and the key fields are kept", () => {
    const report = { ...realisticReport(41, T0), inventory: undefined };
    const encoded = encodeReport(7, report);
    const rows = reportToRows(7, report);
    for (const kind of SERIES_KINDS) {
      const expected = encodeBinaryTuples(rows[kind], SERIES_SPECS[kind].types);
      expect(tuplesOf(encoded, kind).equals(expected), kind).toBe(true);
      expect(hasTableRows(encoded, kind), kind).toBe(expected.length > 0);
    }
    expect(encoded.tuples.length).toBe(encoded.tableEnds.at(-1));
    expect({ seq: encoded.seq, ts: encoded.ts, inventory: encoded.inventory }).toEqual({ seq: 41, ts: T0, inventory: undefined });
  });

  test('a table the report has no rows for is empty, and the tables around it keep their own bytes', () => {
    const report = { ...realisticReport(3, T0), disks: [], probes: [] };
    const encoded = encodeReport(9, report);
    expect(hasTableRows(encoded, 'disk')).toBe(false);
    expect(tuplesOf(encoded, 'disk').length).toBe(0);
    expect(hasTableRows(encoded, 'probe')).toBe(false);
    const rows = reportToRows(9, report);
    expect(tuplesOf(encoded, 'cpu').equals(encodeBinaryTuples(rows.cpu, SERIES_SPECS.cpu.types))).toBe(true);
    expect(tuplesOf(encoded, 'cgroup').equals(encodeBinaryTuples(rows.cgroup, SERIES_SPECS.cgroup.types))).toBe(true);
  });

  test('reports encoded one after another do not share bytes (the scratch buffer is reused)', () => {
    const first = encodeReport(1, realisticReport(1, T0));
    const copy = Buffer.from(first.tuples);
    encodeReport(2, realisticReport(2, T0 + 10_000));
    expect(first.tuples.equals(copy)).toBe(true);
  });

  test('a value its column cannot hold throws a RangeError, and the next report still encodes', () => {
    const report = realisticReport(5, T0);
    const tooMany = { ...report, agent: { ...report.agent, droppedReports: 2 ** 31 } };
    expect(() => encodeReport(1, tooMany)).toThrow(RangeError);
    const next = encodeReport(1, report);
    expect(tuplesOf(next, 'host').equals(encodeBinaryTuples(reportToRows(1, report).host, SERIES_SPECS.host.types))).toBe(true);
  });
});
