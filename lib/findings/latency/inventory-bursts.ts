import type { Inventory } from '../../protocol';
import { HOUR_MS } from '../../protocol/time';
import type { InventoryObservation } from './facts';
import { diffInventories } from './inventory-diff';

/** Changes are looked for in the range and a lead-up before it: as long as the range, and at least an hour. */
export const inventoryLeadUpMs = (rangeMs: number) => Math.max(rangeMs, HOUR_MS);

export interface Snapshot {
  hostId: number;
  atMs: number;
  data: Inventory;
}

/**
 * Per host, the inventory changes from `fromMs` on: each snapshot taken then, diffed against the one before it (which
 * may be older). A host's first snapshot is its enrolment, not a change. `snapshots` by host, then time.
 */
export function changesOf(snapshots: readonly Snapshot[], fromMs: number): Map<number, InventoryObservation[]> {
  const changes = new Map<number, InventoryObservation[]>();
  let previous: Snapshot | null = null;
  for (const snapshot of snapshots) {
    if (previous && previous.hostId === snapshot.hostId && snapshot.atMs >= fromMs) {
      const list = changes.get(snapshot.hostId) ?? [];
      list.push({ atMs: snapshot.atMs, changes: diffInventories(previous.data, snapshot.data) });
      changes.set(snapshot.hostId, list);
    }
    previous = snapshot;
  }
  return changes;
}

/** What a change line is about: its process ("serve.py OMP_NUM_THREADS 8 → 1"), or its first word for the host's own. */
const subjectOf = (line: string) => line.split(' ')[0]!;

/** Snapshots further apart than this belong to different changes. */
const BURST_GAP_MS = 5 * 60_000;
/** However often a host re-snapshots (thread counts churn), a change is looked for this far back at most. */
const BURST_SPAN_MS = 15 * 60_000;

/**
 * The newest change of one host's snapshots (the one before `fromMs`, then those from it on) as a person made it: a restart arrives as several snapshots close
 * together (the process gone, then started with new settings), so the snapshots of that burst are diffed as one, from
 * the one before it to the last. `atMs` is when the first of them departed from the state before. null when the
 * range holds no change that bears on latency.
 */
export function newestChangeOf(snapshots: readonly Snapshot[], fromMs: number): InventoryObservation | null {
  const last = snapshots.at(-1);
  if (!last || last.atMs < fromMs) return null;
  let first = snapshots.length - 1;
  while (first > 1 && snapshots[first - 1]!.atMs >= fromMs && snapshots[first]!.atMs - snapshots[first - 1]!.atMs <= BURST_GAP_MS && last.atMs - snapshots[first - 1]!.atMs <= BURST_SPAN_MS) first--;
  const base = snapshots[first - 1];
  if (!base) return null;
  const changes = diffInventories(base.data, last.data);
  if (changes.length === 0) return null;
  return { atMs: departureOf(base, snapshots.slice(first), changes).atMs, changes };
}

// A process's thread count and its mapped runtimes move on their own while it warms up (its pool starts with the
// first inference, libraries map lazily); what a person changes is a setting, a restart, a cpuset, a process.
const isWarmUp = (line: string) => / threads \d+ → \d+$/.test(line) || / runtimes /.test(line);

/**
 * When a change began: the first snapshot of its burst that shows one of its deliberate lines (a setting, a restart)
 * or its process gone. Other processes start and settle in the same minutes, and its own process may still have been
 * warming up, so neither any snapshot at all nor any that touched the process will do. A change made only of
 * warm-up lines began with the first snapshot that touched its process.
 */
export function departureOf(base: Snapshot, burst: readonly Snapshot[], changes: readonly string[]): Snapshot {
  const deliberate = new Set(changes.filter((line) => !isWarmUp(line)));
  const touched = new Set(changes.map(subjectOf));
  const departs = (snapshot: Snapshot) =>
    diffInventories(base.data, snapshot.data).some((line) =>
      deliberate.size > 0 ? deliberate.has(line) || (touched.has(subjectOf(line)) && line.endsWith(' gone')) : touched.has(subjectOf(line)),
    );
  return burst.find(departs) ?? burst.at(-1)!;
}
