import { describe, expect, test } from 'vitest';
import { defaultsOf, regionFacts, regionRuleContext } from '../../../tests/support/findings-facts';
import type { RegionFacts } from '../types';
import { rttGap } from './region.rtt-gap';

const t = defaultsOf(rttGap.defaults);
const judge = (regions: RegionFacts[], open: [string, string][] = [], thresholds = t) => rttGap.evaluate(regions, thresholds, regionRuleContext(open));
const oslo = (connect: number | null, patch = {}) => regionFacts('oslo', [{ name: 'nix-users', medianConnectMs: connect, ...patch }]);
const frankfurt = (connect: number | null, patch = {}) => regionFacts('frankfurt', [{ name: 'nix-users', medianConnectMs: connect, ...patch }]);

describe('region.rtt-gap', () => {
  test('regions within 20 ms of each other raise nothing', () => {
    expect(judge([oslo(7), frankfurt(19)])).toEqual([]);
  });

  test('a region more than 20 ms slower than the best to the same probe is an info finding on the slower region', () => {
    const [v] = judge([oslo(7), frankfurt(31)]);
    expect(v).toMatchObject({ region: 'frankfurt', subject: 'nix-users', severity: 'info', value: 24 });
    expect(v!.message).toBe('frankfurt +24 ms vs oslo to nix-users (median connect 31 ms vs 7 ms over 15 min)');
    expect(v!.remedy).toMatch(/^If nix-users \(tcp:\/\/nix-users\.example:443\) stands for where users are, serve them from oslo: .*geo-DNS or anycast/);
    expect(v!.evidence.series).toEqual([{ metric: 'probe_connect', key: 'nix-users' }]);
    expect(v!.evidence.window).toEqual({ from: new Date(oslo(7).fromMs).toISOString(), to: new Date(oslo(7).toMs).toISOString() });
  });

  test('every slower region is compared with the best one; sub-10 ms values keep a decimal', () => {
    const london = regionFacts('london', [{ name: 'nix-users', medianConnectMs: 33.6 }]);
    const verdicts = judge([frankfurt(31.2), oslo(6.4), london]);
    expect(verdicts.map((v) => v.message)).toEqual([
      'frankfurt +25 ms vs oslo to nix-users (median connect 31 ms vs 6.4 ms over 15 min)',
      'london +27 ms vs oslo to nix-users (median connect 34 ms vs 6.4 ms over 15 min)',
    ]);
  });

  test('exactly 20 ms slower does not raise', () => {
    expect(judge([oslo(7), frankfurt(27)])).toEqual([]);
    expect(judge([oslo(7), frankfurt(27.1)])).toHaveLength(1);
  });

  test('hysteresis: an open finding stays open down to a 15 ms gap, and clears below it', () => {
    expect(judge([oslo(7), frankfurt(24)])).toEqual([]);
    expect(judge([oslo(7), frankfurt(24)], [['frankfurt', 'nix-users']])).toHaveLength(1);
    expect(judge([oslo(7), frankfurt(21.9)], [['frankfurt', 'nix-users']])).toEqual([]);
    expect(judge([oslo(7), frankfurt(24)], [['oslo', 'nix-users']])).toEqual([]);
  });

  test('a probe measured in one region only, or with too few samples in one of them, is not compared', () => {
    expect(judge([oslo(7), regionFacts('frankfurt', [{ name: 'other', medianConnectMs: 50 }])])).toEqual([]);
    expect(judge([oslo(7), frankfurt(60, { samples: 29 })])).toEqual([]);
    expect(judge([oslo(7, { samples: 29 }), frankfurt(60)])).toEqual([]);
    expect(judge([oslo(7), frankfurt(60, { samples: 30 })])).toHaveLength(1);
  });

  test('regions are compared by connect time where two have it, else by response time; a region with neither is left out', () => {
    const [v] = judge([oslo(null, { medianResponseMs: 12 }), frankfurt(null, { medianResponseMs: 45 })]);
    expect(v!.message).toBe('frankfurt +33 ms vs oslo to nix-users (median response 45 ms vs 12 ms over 15 min)');
    expect(v!.evidence.series).toEqual([{ metric: 'probe_response', key: 'nix-users' }]);
    expect(judge([oslo(7), frankfurt(null)])).toEqual([]);
    const london = regionFacts('london', [{ name: 'nix-users', medianConnectMs: null, medianResponseMs: 80 }]);
    expect(judge([oslo(7), frankfurt(31), london]).map((v) => v.region)).toEqual(['frankfurt']);
  });

  test('thresholds come from the caller (fleet overrides)', () => {
    expect(judge([oslo(7), frankfurt(19)], [], { ...t, gapMs: 10 })).toHaveLength(1);
    expect(judge([oslo(7), frankfurt(60, { samples: 40 })], [], { ...t, minSamples: 50 })).toEqual([]);
  });
});
