import { describe, expect, test } from 'vitest';
import { coverageKey, type EvaluatedVerdict } from '../../../lib/findings/engine/evaluate';
import { contentKey, planFindingChanges } from '../../../lib/findings/engine/lifecycle';
import type { StoredFinding } from '../../../lib/findings/store/findings';

const NOW = 1_800_000_000_000;
const verdict = (patch: Partial<EvaluatedVerdict> = {}, value = 7): EvaluatedVerdict => ({
  ruleId: 'cpu.steal-high', hostId: 1, region: 'oslo', subject: '', openAfterMs: 0,
  verdict: { severity: 'warning', message: 'm', remedy: 'r', value, evidence: { values: [] } },
  ...patch,
});
const stored = (patch: Partial<StoredFinding> = {}): StoredFinding => ({
  id: 10, ruleId: 'cpu.steal-high', hostId: 1, region: 'oslo', subject: '', severity: 'warning', state: 'open', peakValue: 9, firstSeenAtMs: NOW - 60_000,
  lastEvaluatedAtMs: NOW - 15_000,
  ...patch,
});
const covered = (...fs: { ruleId: string; hostId: number | null; region: string }[]) => new Set(fs.map(coverageKey));

describe('planFindingChanges', () => {
  test('a new verdict opens a finding at once, or pending when its rule asks for a minimum duration', () => {
    const changes = planFindingChanges([], [verdict(), verdict({ ruleId: 'disk', openAfterMs: 120_000 })], covered(), NOW);
    expect(changes.inserts.map((i) => [i.ruleId, i.state])).toEqual([['cpu.steal-high', 'open'], ['disk', 'pending']]);
  });

  test('a verdict for an open finding updates it and keeps the higher peak', () => {
    const changes = planFindingChanges([stored()], [verdict({}, 7)], covered(stored()), NOW);
    expect(changes.updates).toEqual([expect.objectContaining({ id: 10, opens: false, peakValue: 9 })]);
    expect(planFindingChanges([stored()], [verdict({}, 12)], covered(), NOW).updates[0]!.peakValue).toBe(12);
  });

  test('an update that would write what was last written is left out; any change, or opening, is written', () => {
    const v = verdict({}, 7);
    const written = new Map([[10, { key: contentKey(v.verdict, 9), atMs: NOW - 15_000 }]]);
    expect(planFindingChanges([stored()], [v], covered(), NOW, written).updates).toEqual([]);
    const reworded = verdict({ verdict: { ...v.verdict, message: 'steal 8 %' } }, 7);
    expect(planFindingChanges([stored()], [reworded], covered(), NOW, written).updates).toHaveLength(1);
    const pending = stored({ state: 'pending', firstSeenAtMs: NOW - 60_000 });
    expect(planFindingChanges([pending], [v], covered(), NOW, written).updates[0]!.opens).toBe(true);
  });

  test('what this engine last wrote is not trusted once another writer has written the row since', () => {
    const v = verdict({}, 7);
    const written = new Map([[10, { key: contentKey(v.verdict, 9), atMs: NOW - 15_000 }]]);
    const rewrittenByAnother = stored({ lastEvaluatedAtMs: NOW - 5_000 });
    expect(planFindingChanges([rewrittenByAnother], [v], covered(), NOW, written).updates).toEqual([expect.objectContaining({ id: 10 })]);
  });

  test('a pending finding opens once it has held for the minimum duration, not before', () => {
    const pending = stored({ state: 'pending', firstSeenAtMs: NOW - 119_000 });
    expect(planFindingChanges([pending], [verdict({ openAfterMs: 120_000 })], covered(), NOW).updates[0]!.opens).toBe(false);
    expect(planFindingChanges([pending], [verdict({ openAfterMs: 120_000 })], covered(), NOW + 1_000).updates[0]!.opens).toBe(true);
  });

  test('a judged host without the verdict resolves its open finding and discards a pending one', () => {
    const open = stored();
    const pending = stored({ id: 11, ruleId: 'disk', state: 'pending' });
    const changes = planFindingChanges([open, pending], [], covered(open, pending), NOW);
    expect(changes).toMatchObject({ resolves: [10], discards: [11], inserts: [], updates: [] });
  });

  test('a finding its rule could not judge this cycle (no inputs) is left as it is', () => {
    expect(planFindingChanges([stored()], [], covered(), NOW)).toEqual({ inserts: [], updates: [], resolves: [], discards: [] });
  });

  test('findings of other subjects, hosts and region findings are told apart', () => {
    const disk = stored({ id: 12, ruleId: 'disk', subject: 'sda' });
    const regional = stored({ id: 13, ruleId: 'rtt', hostId: null, region: 'frankfurt', subject: 'nix' });
    const changes = planFindingChanges(
      [disk, regional],
      [verdict({ ruleId: 'disk', subject: 'sdb' }), verdict({ ruleId: 'rtt', hostId: null, region: 'frankfurt', subject: 'nix' })],
      covered(disk, regional),
      NOW,
    );
    expect(changes.inserts.map((i) => i.subject)).toEqual(['sdb']);
    expect(changes.updates.map((u) => u.id)).toEqual([13]);
    expect(changes.resolves).toEqual([12]);
  });
});
