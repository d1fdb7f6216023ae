import { describe, expect, test } from 'vitest';
import { LATE_REPORT_AGE_MS, lateMinutesOf } from '../../../lib/series/late-minutes';

const nowMs = Date.UTC(2026, 10, 29, 12, 0, 30);
const minuteMs = Date.UTC(2026, 10, 29, 11, 0);

describe('lateMinutesOf', () => {
  test('reports younger than the lateness window give nothing, so normal traffic queues no work', () => {
    expect(lateMinutesOf([{ hostId: 1, ts: nowMs - 10_000 }, { hostId: 2, ts: nowMs - LATE_REPORT_AGE_MS + 1 }], nowMs)).toEqual([]);
  });

  test('late reports give one (host, minute) pair per host and minute, floored to the minute', () => {
    const reports = [
      { hostId: 1, ts: minuteMs + 1_000 },
      { hostId: 1, ts: minuteMs + 59_999 },
      { hostId: 2, ts: minuteMs + 30_000 },
      { hostId: 1, ts: minuteMs + 60_000 },
      { hostId: 3, ts: nowMs - 5_000 },
    ];
    expect(lateMinutesOf(reports, nowMs)).toEqual([
      { hostId: 1, minuteMs },
      { hostId: 2, minuteMs },
      { hostId: 1, minuteMs: minuteMs + 60_000 },
    ]);
  });

  test('a report exactly at the window edge counts as late', () => {
    expect(lateMinutesOf([{ hostId: 7, ts: nowMs - LATE_REPORT_AGE_MS }], nowMs)).toEqual([
      { hostId: 7, minuteMs: Math.floor((nowMs - LATE_REPORT_AGE_MS) / 60_000) * 60_000 },
    ]);
  });
});
