import { expect, test } from 'vitest';
import { eventually, runFindingsCycle } from '../support/live-agent';
import { producedReports, setUpDrill, type AgentLogLine } from '../support/fault-drill';
import { rowsOf } from '../support/rows';

// Fault drill: the server refuses every report (503) for longer than the agent's spool can hold. The agent keeps
// the newest reports that fit in --spool-max-mb, drops the oldest, says how many in its log and in every later
// report (agent.droppedReports), and delivers what it kept once the server is back; the findings engine turns the
// count into "Agent spool full: reports lost".
const SPOOL_MAX_MB = 0.01; // ≈ 10 KB: a handful of reports of this machine (≈ 2 KB each)
const DROPS_TO_WAIT_FOR = 6;

const drill = setUpDrill('spool');

const dropLines = (logs: AgentLogLine[]) => logs.filter((line) => line.msg === 'spool full: dropped the oldest unsent reports');

test('a full spool drops the oldest reports, reports how many, and delivers the newest once the server is back', { timeout: 150_000 }, async () => {
  const { server, stateDir } = drill;
  const start = (args: string[] = []) =>
    drill.startAgent({ intervalS: 0.5, args: ['--spool-max-mb', String(SPOOL_MAX_MB), '--retry-max', '1', ...args] });
  const agent = start();
  await eventually('reports before the outage', async () => ((await server.storedSeqs()).length >= 3 ? true : undefined));

  server.setGate('refuse');
  await eventually(`${DROPS_TO_WAIT_FOR} reports dropped`, async () => {
    const total = dropLines(agent.logs).at(-1)?.droppedTotal;
    return typeof total === 'number' && total >= DROPS_TO_WAIT_FOR ? true : undefined;
  });
  server.setGate('pass');
  const producedAtRecovery = producedReports(stateDir);
  await eventually('the newest reports after the outage', async () => ((await server.storedSeqs()).at(-1)! >= producedAtRecovery ? true : undefined));
  agent.child.kill('SIGTERM');
  expect(await agent.exited).toBe(0);
  expect(await start(['--once']).exited).toBe(0);

  const stored = await server.storedSeqs();
  const produced = producedReports(stateDir);
  const missing = Array.from({ length: produced }, (_, seq) => seq).filter((seq) => !stored.includes(seq));
  const droppedTotal = dropLines(agent.logs).at(-1)!.droppedTotal as number;
  // One run of the outage's oldest reports is gone; everything before and after it arrived, once each.
  expect(missing.length).toBe(droppedTotal);
  expect(missing).toEqual(Array.from({ length: droppedTotal }, (_, i) => missing[0]! + i));
  expect(stored).toEqual(Array.from({ length: produced }, (_, seq) => seq).filter((seq) => !missing.includes(seq)));
  expect(dropLines(agent.logs).every((line) => line.level === 'error')).toBe(true);

  const { getDb } = await import('../../lib/db');
  const [newest] = await rowsOf<{ dropped_reports: number }>((await getDb()).sql, 'SELECT dropped_reports FROM host_samples ORDER BY ts DESC LIMIT 1');
  expect(newest!.dropped_reports).toBe(droppedTotal);
  const finding = (await runFindingsCycle()).find((f) => f.ruleId === 'agent.spool-dropped');
  expect(finding?.value).toBe(droppedTotal);
});
