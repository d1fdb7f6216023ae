import { describe, expect, test } from 'vitest';
import { NOW_MS, defaultsOf, emptyFleet, hostFacts, ruleContext } from '../../../tests/support/findings-facts';
import type { ResidencyPolicy } from '../types';
import { residency } from './region.residency';

const t = defaultsOf(residency.defaults);
const norwayOnly: ResidencyPolicy = { id: 1, name: 'norway-only', selector: { data: 'norway-only' }, allowedRegions: ['oslo'] };
const eu: ResidencyPolicy = { id: 2, name: 'eu', selector: {}, allowedRegions: ['oslo', 'frankfurt'] };
const host = (region: string, labels: Record<string, string>, patch: Parameters<typeof hostFacts>[0] = {}) =>
  hostFacts({ ...patch, host: { hostname: 'fra-inf-02', region, labels, ...patch.host } });
const judge = (facts: ReturnType<typeof hostFacts>, policies: ResidencyPolicy[], thresholds = t) =>
  residency.evaluate(facts, thresholds, ruleContext([], emptyFleet({ residencyPolicies: policies })));

describe('region.residency', () => {
  test('without policies nothing is judged', () => {
    expect(judge(host('frankfurt', { data: 'norway-only' }), [])).toEqual([]);
  });

  test('a host labelled for a policy, in a region it does not allow, is critical, naming the policy and both regions', () => {
    const [v] = judge(host('frankfurt', { data: 'norway-only', service: 'ranker' }), [norwayOnly]);
    expect(v).toMatchObject({ severity: 'critical', subject: 'norway-only' });
    expect(v!.message).toBe('This host runs in frankfurt, but residency policy "norway-only" keeps hosts labelled data=norway-only in oslo.');
    expect(v!.remedy).toMatch(/npm run admin -- keys create --name <name> --region oslo --label data=norway-only/);
    expect(v!.remedy).toMatch(/host-token\.json/);
    expect(v!.evidence.values).toContainEqual({ label: 'allowed regions', value: 'oslo' });
  });

  test('a host in an allowed region, or whose labels do not all match the selector, raises nothing', () => {
    expect(judge(host('oslo', { data: 'norway-only' }), [norwayOnly])).toEqual([]);
    expect(judge(host('frankfurt', { data: 'no-personal' }), [norwayOnly])).toEqual([]);
    expect(judge(host('frankfurt', {}), [norwayOnly])).toEqual([]);
    const twoLabels: ResidencyPolicy = { ...norwayOnly, selector: { data: 'norway-only', team: 'ml' } };
    expect(judge(host('frankfurt', { data: 'norway-only' }), [twoLabels])).toEqual([]);
    expect(judge(host('frankfurt', { data: 'norway-only', team: 'ml' }), [twoLabels])).toHaveLength(1);
  });

  test('an empty selector applies to every host; each violated policy is its own finding', () => {
    const [v] = judge(host('london', {}), [eu]);
    expect(v!.message).toBe('This host runs in london, but residency policy "eu" keeps every host in oslo or frankfurt.');
    const both = judge(host('london', { data: 'norway-only' }), [norwayOnly, eu]);
    expect(both.map((x) => x.subject)).toEqual(['norway-only', 'eu']);
  });

  test('a host silent for more than 24 h (a record left behind by re-enrolling) is not judged; up to 24 h it is', () => {
    const silentFor = (ms: number) => host('frankfurt', { data: 'norway-only' }, { lastReportMs: NOW_MS - ms });
    expect(judge(silentFor(24 * 3_600_000), [norwayOnly])).toHaveLength(1);
    expect(judge(silentFor(24 * 3_600_000 + 1), [norwayOnly])).toEqual([]);
    expect(judge(silentFor(30 * 3_600_000), [norwayOnly], { silentHours: 48 })).toHaveLength(1);
  });

  test('a host that never reported is judged from its enrollment, up to the same limit', () => {
    const enrolled = (agoMs: number) => host('frankfurt', { data: 'norway-only' }, { lastReportMs: null, host: { createdAtMs: NOW_MS - agoMs } });
    expect(judge(enrolled(60_000), [norwayOnly])).toHaveLength(1);
    expect(judge(enrolled(25 * 3_600_000), [norwayOnly])).toEqual([]);
  });
});
