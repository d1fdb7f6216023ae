import { describe, expect, test } from 'vitest';
import { NOW_MS, cleanWindow, defaultsOf, hostFacts, ruleContext } from '../../../tests/support/findings-facts';
import { stoppedReporting } from './agent.stopped-reporting';

const t = defaultsOf(stoppedReporting.defaults);
const silentFor = (ms: number, patch: Parameters<typeof hostFacts>[0] = {}) => hostFacts({ window: null, lastReportMs: NOW_MS - ms, ...patch });
const judge = (facts: ReturnType<typeof hostFacts>, thresholds = t) => stoppedReporting.evaluate(facts, thresholds, ruleContext());

describe('agent.stopped-reporting', () => {
  test('a host that reported 5 s ago raises nothing', () => {
    expect(judge(hostFacts())).toEqual([]);
  });

  test('three missed 10 s reports are a warning with the age and the last report time', () => {
    const [v] = judge(silentFor(250_000));
    expect(v).toMatchObject({ severity: 'warning', value: 250 });
    expect(v!.message).toBe(
      'No report for 4 min 10 s (last received 2026-12-01 11:55:50 UTC): 25 reports missed at its 10 s interval. ' +
        'Its other findings stay as they were when it went silent.',
    );
    expect(v!.remedy).toMatch(/systemctl status inferwatch-agent/);
    expect(v!.remedy).toMatch(/journalctl -u inferwatch-agent/);
    expect(v!.remedy).toMatch(/\/api\/health/);
    expect(v!.remedy).toMatch(/\/var\/lib\/inferwatch-agent\/spool\//);
  });

  test('reports that arrived late (a spool sent, then silence) name both times: when the newest arrived and where its samples end', () => {
    // Received at 11:10:00, holding samples up to 10:50:00 by the host's clock; judged at 12:00:00.
    const [v] = judge(silentFor(50 * 60_000, { lastSampleMs: NOW_MS - 70 * 60_000 }));
    expect(v!.message).toBe(
      'No report for 50 min (last received 2026-12-01 11:10:00 UTC): 300 reports missed at its 10 s interval. ' +
        'Its samples end at 2026-12-01 10:50:00 UTC by its own clock: that report arrived 20 min after it was made, ' +
        'from its spool, or the host\'s clock is behind. Its other findings stay as they were when it went silent.',
    );
    expect(v!.evidence.values).toContainEqual({ label: 'newest sample', value: '2026-12-01T10:50:00.000Z' });
  });

  test('a sample time within one interval of the arrival is not called late', () => {
    const [v] = judge(silentFor(250_000, { lastSampleMs: NOW_MS - 259_000 }));
    expect(v!.message).not.toMatch(/arrived|samples end/);
  });

  test('exactly three intervals old does not raise; a moment more does', () => {
    expect(judge(silentFor(30_000))).toEqual([]);
    expect(judge(silentFor(30_001))).toHaveLength(1);
  });

  test('silence beyond 15 minutes is critical', () => {
    expect(judge(silentFor(15 * 60_000))[0]!.severity).toBe('warning');
    expect(judge(silentFor(15 * 60_000 + 1_000))[0]!.severity).toBe('critical');
    expect(judge(silentFor(3 * 86_400_000 + 4 * 3_600_000))[0]!.message).toMatch(/^No report for 3 d 4 h /);
  });

  test('a new host whose only report is its 260 ms warm-up is judged at its configured 10 s: not silent 2 s later', () => {
    const warmUpOnly = { reportEveryMs: 10_000, lastIntervalMs: 260, window: cleanWindow({ samples: 1, longestIntervalMs: 260 }) };
    expect(judge(hostFacts({ ...warmUpOnly, lastReportMs: NOW_MS - 2_000 }))).toEqual([]);
    expect(judge(hostFacts({ ...warmUpOnly, lastReportMs: NOW_MS - 30_000 }))).toEqual([]);
    const [v] = judge(hostFacts({ ...warmUpOnly, lastReportMs: NOW_MS - 31_000 }));
    expect(v!.message).toMatch(/^No report for 31 s \(last .*\): 3 reports missed at its 10 s interval\./);
  });

  test('the configured interval wins over the measured ones, whether longer or shorter', () => {
    const measured10 = { lastIntervalMs: 10_000, window: cleanWindow({ longestIntervalMs: 10_000 }) };
    expect(judge(silentFor(7_000, { ...measured10, reportEveryMs: 2_000 }))[0]!.message).toMatch(/3 reports missed at its 2 s interval/);
    expect(judge(silentFor(150_000, { ...measured10, reportEveryMs: 60_000 }))).toEqual([]);
  });

  test('an older agent, without a configured interval, is judged by the longest interval in the window, not a warm-up', () => {
    // Restarted: 10 s reports, then a warm-up report, the newest.
    const restarted = { reportEveryMs: null, lastIntervalMs: 260, window: cleanWindow({ samples: 12, longestIntervalMs: 10_000 }) };
    expect(judge(hostFacts({ ...restarted, lastReportMs: NOW_MS - 20_000 }))).toEqual([]);
    expect(judge(hostFacts({ ...restarted, lastReportMs: NOW_MS - 31_000 }))[0]!.message).toMatch(/3 reports missed at its 10 s interval/);
  });

  test('without a configured interval the host\'s own counts: the longest in its window, else its newest report, else 10 s', () => {
    const window60 = cleanWindow({ longestIntervalMs: 60_000 });
    expect(judge(hostFacts({ window: window60, lastReportMs: NOW_MS - 150_000 }))).toEqual([]);
    expect(judge(hostFacts({ window: window60, lastReportMs: NOW_MS - 181_000 }))).toHaveLength(1);
    // An hourly agent has samples in the window only now and then: its quiet stretches are not silence.
    expect(judge(silentFor(50 * 60_000, { lastIntervalMs: 3_600_000 }))).toEqual([]);
    expect(judge(silentFor(40_000, { lastIntervalMs: null }))).toHaveLength(1);
  });

  test('the critical threshold never comes before the warning one', () => {
    const [v] = judge(silentFor(4 * 3_600_000, { lastIntervalMs: 3_600_000 }));
    expect(v!.severity).toBe('critical');
    expect(judge(silentFor(3 * 3_600_000 + 60_000, { lastIntervalMs: 3_600_000 }))[0]!.severity).toBe('critical');
    expect(judge(silentFor(40 * 60_000, { lastIntervalMs: 600_000 }))[0]!.severity).toBe('critical');
    expect(judge(silentFor(20 * 60_000, { lastIntervalMs: 600_000 }))).toEqual([]);
  });

  test('a host that never reported raises nothing: enrolled is not yet running', () => {
    expect(judge(hostFacts({ window: null, lastReportMs: null }))).toEqual([]);
  });

  test('thresholds come from the caller (overrides)', () => {
    expect(judge(silentFor(25_000), { ...t, missedIntervals: 2 })).toHaveLength(1);
    expect(judge(silentFor(6 * 60_000), { ...t, criticalAfterMin: 5 })[0]!.severity).toBe('critical');
  });
});
