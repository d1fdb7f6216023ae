import type { EvaluatedVerdict } from './evaluate';
import { coverageKey, findingKey } from './evaluate';
import type { FindingChanges, StoredFinding } from '../store/findings';

/** What an engine last wrote to a finding: its content key, and the cycle time it stamped as last_evaluated_at. */
export interface WrittenContent {
  key: string;
  atMs: number;
}

/** What an update would write; the same key as last time means there is nothing to write. */
export function contentKey(verdict: EvaluatedVerdict['verdict'], peakValue: number | null): string {
  return JSON.stringify([verdict.severity, verdict.message, verdict.remedy, verdict.value ?? null, peakValue, verdict.evidence]);
}

function peakOf(previous: number | null, current: number | null | undefined): number | null {
  if (current === null || current === undefined) return previous;
  return previous === null ? current : Math.max(previous, current);
}

/**
 * What to write so the stored findings say what the rules say now. A verdict opens a finding (pending first when
 * its rule asks for a minimum duration); a finding the rules were able to judge and no longer raise resolves.
 */
export function planFindingChanges(
  active: readonly StoredFinding[],
  verdicts: readonly EvaluatedVerdict[],
  covered: ReadonlySet<string>,
  nowMs: number,
  /**
   * What this engine last wrote per finding id: an update that would write the same is left out, unless the row was
   * written since by someone else (another leader's cycle still finishing).
   */
  written: ReadonlyMap<number, WrittenContent> = new Map(),
): FindingChanges {
  const byKey = new Map(active.map((f) => [findingKey(f), f]));
  const raised = new Set<string>();
  const changes: FindingChanges = { inserts: [], updates: [], resolves: [], discards: [] };

  for (const v of verdicts) {
    const key = findingKey(v);
    if (raised.has(key)) continue;
    raised.add(key);
    const existing = byKey.get(key);
    if (!existing) {
      changes.inserts.push({
        ruleId: v.ruleId,
        hostId: v.hostId,
        region: v.region,
        subject: v.subject,
        state: v.openAfterMs > 0 ? 'pending' : 'open',
        verdict: v.verdict,
      });
      continue;
    }
    const opens = existing.state === 'pending' && nowMs - existing.firstSeenAtMs >= v.openAfterMs;
    const peakValue = peakOf(existing.peakValue, v.verdict.value);
    const last = written.get(existing.id);
    if (!opens && last?.atMs === existing.lastEvaluatedAtMs && last.key === contentKey(v.verdict, peakValue)) continue;
    changes.updates.push({ id: existing.id, opens, peakValue, verdict: v.verdict });
  }

  for (const f of active) {
    if (raised.has(findingKey(f)) || !covered.has(coverageKey(f))) continue;
    (f.state === 'open' ? changes.resolves : changes.discards).push(f.id);
  }
  return changes;
}
