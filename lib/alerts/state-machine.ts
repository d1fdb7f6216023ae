/** Where an alert instance stands between cycles; `null` is inactive (no unresolved occurrence). */
export interface ActivePhase {
  state: 'pending' | 'firing';
  pendingAtMs: number;
  firedAtMs: number | null;
  /** Since when the value has been at or below the clear threshold while firing; null while it is not. */
  clearSinceMs: number | null;
}

/** What one evaluation says of an instance: above the threshold, at or below the clear threshold, or between. */
export interface Judgement {
  breaching: boolean;
  clear: boolean;
}

export interface Timing {
  forMs: number;
  clearForMs: number;
}

export type Transition = 'pending' | 'firing' | 'resolved' | 'discarded';

export interface Step {
  /** The phase after this evaluation; null when the occurrence ends (resolved or discarded) or never began. */
  next: ActivePhase | null;
  transition: Transition | null;
}

/**
 * inactive → pending → firing → resolved. Pending needs the value above the threshold at every evaluation (a dip
 * discards it: it never notified anyone); firing holds until the value has stayed at or below the clear
 * threshold for `clearForMs`, so a value hovering between the two thresholds, or crossing them every sample,
 * keeps one firing occurrence instead of a storm of them.
 */
export function stepAlert(stored: ActivePhase | null, judgement: Judgement, timing: Timing, nowMs: number): Step {
  const current = stored && phaseOf(stored);
  if (current === null) {
    if (!judgement.breaching) return { next: null, transition: null };
    if (timing.forMs <= 0) return { next: { state: 'firing', pendingAtMs: nowMs, firedAtMs: nowMs, clearSinceMs: null }, transition: 'firing' };
    return { next: { state: 'pending', pendingAtMs: nowMs, firedAtMs: null, clearSinceMs: null }, transition: 'pending' };
  }
  if (current.state === 'pending') {
    if (!judgement.breaching) return { next: null, transition: 'discarded' };
    if (nowMs - current.pendingAtMs >= timing.forMs) {
      return { next: { ...current, state: 'firing', firedAtMs: nowMs }, transition: 'firing' };
    }
    return { next: current, transition: null };
  }
  if (!judgement.clear) return { next: { ...current, clearSinceMs: null }, transition: null };
  const clearSinceMs = current.clearSinceMs ?? nowMs;
  if (nowMs - clearSinceMs >= timing.clearForMs) return { next: null, transition: 'resolved' };
  return { next: { ...current, clearSinceMs }, transition: null };
}

/** Just the phase of a stored occurrence (which carries more). */
function phaseOf(a: ActivePhase): ActivePhase {
  return { state: a.state, pendingAtMs: a.pendingAtMs, firedAtMs: a.firedAtMs, clearSinceMs: a.clearSinceMs };
}

export function samePhase(a: ActivePhase, b: ActivePhase): boolean {
  return a.state === b.state && a.pendingAtMs === b.pendingAtMs && a.firedAtMs === b.firedAtMs && a.clearSinceMs === b.clearSinceMs;
}
