import { describe, expect, test } from 'vitest';
import { realisticReport } from '../../../bench/_ingest-report';
import { HostProgressMap, hostProgress, hostUpdateParams, type HostProgress } from '../../../lib/ingest/write/host-progress';
import type { PlannedReport } from '../../../lib/ingest/write/plan';

const T0 = Date.UTC(2026, 10, 29, 12);

const progress = (
  hostId: number,
  maxSeq: number,
  maxTsMs: number,
  seenAtMs: number,
  reportEveryMs: number | null = null,
  agentVersion: string | null = null,
): HostProgress => ({ hostId, maxSeq, maxTsMs, seenAtMs, reportEveryMs, agentVersion });
/** Progress as addStored gathers it from `stored` reports (whose agent is 0.1.0 unless said otherwise). */
const storedProgress = (hostId: number, maxSeq: number, maxTsMs: number, seenAtMs: number, reportEveryMs: number | null = null, agentVersion = '0.1.0') =>
  progress(hostId, maxSeq, maxTsMs, seenAtMs, reportEveryMs, agentVersion);

/** A stored report; its agent's configured interval as given, absent (an older agent) when undefined. */
const stored = (hostId: number, seq: number, tsMs: number, reportEveryMs?: number, agentVersion = '0.1.0'): PlannedReport => {
  const report = realisticReport(seq, tsMs);
  const agent = { ...report.agent, reportEveryMs, version: agentVersion };
  if (reportEveryMs === undefined) delete agent.reportEveryMs;
  return { hostId, report: { ...report, agent }, request: 0, index: 0 };
};

describe('HostProgressMap', () => {
  test('keeps per host the largest seq, report ts and seen time, even when each comes from a different entry', () => {
    const map = new HostProgressMap();
    map.add(progress(1, 9, T0 + 100, T0 + 5_000));
    map.add(progress(1, 4, T0 + 900, T0 + 1_000));
    map.add(progress(1, 2, T0 + 50, T0 + 9_000));
    expect(map.take()).toEqual([progress(1, 9, T0 + 900, T0 + 9_000)]);
  });

  test('merging the same progress twice changes nothing', () => {
    const once = new HostProgressMap();
    const twice = new HostProgressMap();
    const p = progress(3, 7, T0, T0 + 10);
    once.add(p);
    twice.add(p);
    twice.add(p);
    expect(twice.size).toBe(1);
    expect(twice.take()).toEqual(once.take());
  });

  test('take returns the hosts in host-id order whatever order they came in, and forgets them', () => {
    const map = new HostProgressMap();
    for (const hostId of [42, 7, 1_000, 3]) map.add(progress(hostId, hostId, T0, T0));
    expect(map.size).toBe(4);
    expect(map.take().map((p) => p.hostId)).toEqual([3, 7, 42, 1_000]);
    expect(map.size).toBe(0);
    expect(map.take()).toEqual([]);
  });

  test('merging never changes the object given to add, nor progress already taken for a write', () => {
    const map = new HostProgressMap();
    const added = progress(5, 1, T0, T0);
    map.add(added);
    map.add(progress(5, 2, T0 + 10, T0 + 10));
    expect(added).toEqual(progress(5, 1, T0, T0));
    const [taken] = map.take();
    map.add(taken!);
    map.add(progress(5, 3, T0 + 20, T0 + 20));
    expect(taken).toEqual(progress(5, 2, T0 + 10, T0 + 10));
    expect(map.take()).toEqual([progress(5, 3, T0 + 20, T0 + 20)]);
  });

  test('a batch put back after a failed write merges with the newer progress gathered meanwhile', () => {
    const map = new HostProgressMap();
    map.add(progress(1, 10, T0 + 100, T0 + 100));
    map.add(progress(2, 20, T0 + 200, T0 + 200));
    const failed = map.take();
    map.add(progress(1, 11, T0 + 110, T0 + 300));
    for (const p of failed) map.add(p);
    expect(map.take()).toEqual([progress(1, 11, T0 + 110, T0 + 300), progress(2, 20, T0 + 200, T0 + 200)]);
  });

  test('addStored takes seq and ts from each stored report and the seen time from the flush', () => {
    const map = new HostProgressMap();
    map.addStored([stored(3, 5, T0 + 50), stored(1, 2, T0 + 20), stored(3, 7, T0 + 30), stored(3, 6, T0 + 60)], T0 + 1_000);
    map.addStored([stored(1, 1, T0 + 10)], T0 + 2_000);
    expect(map.take()).toEqual([storedProgress(1, 2, T0 + 20, T0 + 2_000), storedProgress(3, 7, T0 + 60, T0 + 1_000)]);
  });
});

describe('the configured interval in host progress', () => {
  test('comes from the newest report (by seq) that carried one; a report without it leaves it as it was', () => {
    const map = new HostProgressMap();
    map.addStored([stored(1, 1, T0 + 10, 250), stored(1, 3, T0 + 30, 10_000), stored(1, 2, T0 + 20, 5_000), stored(1, 4, T0 + 40)], T0 + 100);
    map.addStored([stored(2, 1, T0 + 10)], T0 + 100);
    expect(map.take()).toEqual([storedProgress(1, 4, T0 + 40, T0 + 100, 10_000), storedProgress(2, 1, T0 + 10, T0 + 100, null)]);
  });

  test('a batch put back after a failed write does not replace the interval gathered since', () => {
    const map = new HostProgressMap();
    map.add(progress(1, 10, T0 + 100, T0 + 100, 10_000));
    const failed = map.take();
    map.add(progress(1, 11, T0 + 110, T0 + 110, 60_000));
    for (const p of failed) map.add(p);
    expect(map.take()).toEqual([progress(1, 11, T0 + 110, T0 + 110, 60_000)]);
  });

  test('is news until taken for a write: a new host\'s first report, or another interval, but not the same one again', () => {
    const map = new HostProgressMap();
    expect(map.hasNewReportEvery).toBe(false);
    map.addStored([stored(1, 1, T0, 10_000)], T0);
    expect(map.hasNewReportEvery).toBe(true);
    map.take();
    expect(map.hasNewReportEvery).toBe(false);
    map.addStored([stored(1, 2, T0 + 10_000, 10_000), stored(2, 1, T0 + 10_000)], T0 + 10_000);
    expect(map.hasNewReportEvery).toBe(false);
    map.addStored([stored(1, 3, T0 + 20_000, 2_000)], T0 + 20_000);
    expect(map.hasNewReportEvery).toBe(true);
  });
});

describe('the agent version in host progress', () => {
  test('comes from the newest report by seq, whatever order the reports are stored in', () => {
    const map = new HostProgressMap();
    map.addStored([stored(1, 2, T0 + 20, undefined, '0.2.0'), stored(1, 1, T0 + 10, undefined, '0.1.0')], T0 + 100);
    map.addStored([stored(1, 3, T0 + 5, undefined, '0.3.0-rc.1')], T0 + 200);
    expect(map.take()).toEqual([storedProgress(1, 3, T0 + 20, T0 + 200, null, '0.3.0-rc.1')]);
  });

  test('a batch put back after a failed write does not replace the version gathered since (an upgrade meanwhile)', () => {
    const map = new HostProgressMap();
    map.add(progress(1, 10, T0 + 100, T0 + 100, null, '0.1.0'));
    const failed = map.take();
    map.add(progress(1, 11, T0 + 110, T0 + 110, null, '0.2.0'));
    for (const p of failed) map.add(p);
    expect(map.take()).toEqual([progress(1, 11, T0 + 110, T0 + 110, null, '0.2.0')]);
  });
});

describe('hostProgress', () => {
  test('gives one entry per host of the stored reports, in host-id order', () => {
    const reports = [stored(9, 100, T0 + 5), stored(4, 1, T0 + 1), stored(9, 99, T0 + 7), stored(4, 3, T0 + 2)];
    expect(hostProgress(reports, T0 + 500)).toEqual([storedProgress(4, 3, T0 + 2, T0 + 500), storedProgress(9, 100, T0 + 7, T0 + 500)]);
  });

  test('gives nothing when nothing was stored', () => {
    expect(hostProgress([], T0)).toEqual([]);
  });
});

describe('hostUpdateParams', () => {
  test('gives ids, seqs, report ts, seen time (epoch ms), configured intervals and agent versions as PostgreSQL array literals, in the given order', () => {
    expect(hostUpdateParams([progress(3, 9, T0 + 100, T0 + 5_000, 10_000, '0.2.0'), progress(7, 12_345_678_901, T0, T0 + 1)])).toEqual([
      '{3,7}',
      '{9,12345678901}',
      `{${T0 + 100},${T0}}`,
      `{${T0 + 5_000},${T0 + 1}}`,
      '{10000,NULL}',
      '{"0.2.0",NULL}',
    ]);
  });

  test('gives empty arrays for no hosts', () => {
    expect(hostUpdateParams([])).toEqual(['{}', '{}', '{}', '{}', '{}', '{}']);
  });
});
