import { describe, expect, test } from 'vitest';
import { cleanWindow, hostFacts, ruleContext } from '../../../tests/support/findings-facts';
import { spoolDropped } from './agent.spool-dropped';

const withDropped = (droppedReports: number) => hostFacts({ window: cleanWindow({ droppedReports }) });
const judge = (facts: ReturnType<typeof hostFacts>) => spoolDropped.evaluate(facts, {}, ruleContext());

describe('agent.spool-dropped', () => {
  test('a clean host (nothing dropped) raises nothing', () => {
    expect(judge(hostFacts())).toEqual([]);
    expect(judge(withDropped(0))).toEqual([]);
  });

  test('reports dropped within the window are a warning that counts them and says they are lost', () => {
    const [v] = judge(withDropped(42));
    expect(v).toMatchObject({ severity: 'warning', value: 42 });
    expect(v!.message).toBe(
      "The agent's spool was full and dropped its 42 oldest unsent reports within the last 5 min: the samples and latencies in them are lost.",
    );
    expect(v!.remedy).toMatch(/INFERWATCH_SPOOL_MAX_MB=500 in \/etc\/inferwatch\/agent\.env \(or --spool-max-mb 500; default 100\)/);
    expect(v!.remedy).toMatch(/journalctl -u inferwatch-agent/);
    expect(v!.evidence.window).toBeDefined();
  });

  test('one dropped report is already a loss', () => {
    expect(judge(withDropped(1))[0]!.message).toMatch(/dropped its 1 oldest unsent report within/);
  });
});
