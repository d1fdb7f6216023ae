import { describe, expect, test } from 'vitest';
import { stepAlert, type ActivePhase, type Judgement, type Timing } from '../../../lib/alerts/state-machine';

const above: Judgement = { breaching: true, clear: false };
const between: Judgement = { breaching: false, clear: false };
const below: Judgement = { breaching: false, clear: true };

/** Steps one instance through judgements taken every `stepMs`, returning each transition with its time. */
function run(judgements: Judgement[], timing: Timing, stepMs = 15_000) {
  let phase = null as ActivePhase | null;
  const transitions: [number, string][] = [];
  judgements.forEach((j, i) => {
    const step = stepAlert(phase, j, timing, i * stepMs);
    if (step.transition) transitions.push([i * stepMs, step.transition]);
    phase = step.next;
  });
  return { transitions, phase };
}

describe('alert state machine', () => {
  test('inactive → pending → firing once the value has stayed above the threshold for the for-duration', () => {
    const { transitions, phase } = run([below, above, above, above, above, above, above, above, above, above], { forMs: 120_000, clearForMs: 0 });
    expect(transitions).toEqual([
      [15_000, 'pending'],
      [135_000, 'firing'],
    ]);
    expect(phase).toMatchObject({ state: 'firing', pendingAtMs: 15_000, firedAtMs: 135_000 });
  });

  test('a pending alert whose value dips to the threshold or below is discarded, and the for-duration starts over', () => {
    const judgements = [above, above, above, above, above, above, between, above, above];
    const { transitions } = run(judgements, { forMs: 120_000, clearForMs: 0 });
    expect(transitions).toEqual([
      [0, 'pending'],
      [90_000, 'discarded'],
      [105_000, 'pending'],
    ]);
  });

  test('a for-duration of zero fires at the first breach', () => {
    expect(run([above], { forMs: 0, clearForMs: 0 }).transitions).toEqual([[0, 'firing']]);
  });

  test('hysteresis: a firing alert holds while the value is between the clear threshold and the threshold', () => {
    const judgements = [above, between, between, between, between, between, between, between];
    const { transitions, phase } = run(judgements, { forMs: 0, clearForMs: 0 });
    expect(transitions).toEqual([[0, 'firing']]);
    expect(phase?.state).toBe('firing');
  });

  test('a firing alert resolves only after the value has stayed at or below the clear threshold for clearFor', () => {
    const judgements = [above, below, below, between, below, below, below, below, below, below, below];
    const { transitions } = run(judgements, { forMs: 0, clearForMs: 60_000 });
    // The dip to between at 45 s restarts the clear clock: cleared from 60 s, resolved at 120 s.
    expect(transitions).toEqual([
      [0, 'firing'],
      [120_000, 'resolved'],
    ]);
  });

  test('clearFor zero resolves at the first clear evaluation', () => {
    expect(run([above, below], { forMs: 0, clearForMs: 0 }).transitions).toEqual([
      [0, 'firing'],
      [15_000, 'resolved'],
    ]);
  });

  test('a value crossing the threshold at every evaluation fires once and never resolves while it keeps crossing', () => {
    const judgements = Array.from({ length: 240 }, (_, i) => (i % 2 === 0 ? above : below));
    const { transitions } = run(judgements, { forMs: 0, clearForMs: 60_000 });
    expect(transitions).toEqual([[0, 'firing']]);
  });
});
