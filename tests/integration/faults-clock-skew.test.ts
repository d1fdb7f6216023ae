import { expect, test } from 'vitest';
import { eventually, runFindingsCycle } from '../support/live-agent';
import { producedReports, spooledSeqs, setUpDrill, type DrillAgent } from '../support/fault-drill';
import { rowsOf } from '../support/rows';

// Fault drill: the host's clock is 10 minutes off. Ingest takes a report stamped up to 5 minutes ahead of the server's
// clock and any time back to raw retention (docs/protocol.md, Time). Behind: its reports are stored at once, at the
// host's time; silence is still judged by when they arrive. Ahead: the first delivery is refused, and the agent keeps
// the reports in its spool (not dropped, not re-sent in a loop) until the server's clock reaches them, while a report
// stamped right goes out at once. The agent logs the difference either way.
const SKEW_MS = 10 * 60_000;
const INTERVAL_S = 1;

const drill = setUpDrill('clock');
const stateDir = () => drill.stateDir;

/** The real agent CLI on a clock `shiftMs` off: every Date in its process is moved, as a wrong system clock would. */
function startAgent(shiftMs: number): DrillAgent {
  const shiftDate = `
    const RealDate = Date;
    globalThis.Date = class extends RealDate {
      constructor(...args) { if (args.length === 0) super(RealDate.now() + ${shiftMs}); else super(...args); }
      static now() { return RealDate.now() + ${shiftMs}; }
    };`;
  return drill.startAgent({
    intervalS: INTERVAL_S,
    args: ['--retry-max', '1'],
    nodeArgs: shiftMs === 0 ? [] : ['--import', `data:text/javascript,${encodeURIComponent(shiftDate)}`],
  });
}

const clockWarning = (agent: DrillAgent) => agent.logs.find((line) => line.msg.startsWith("this host's clock is"));

test('a clock 10 minutes behind: reports are stored at once, at the host time, and silence is judged by arrival', { timeout: 120_000 }, async () => {
  const agent = startAgent(-SKEW_MS);
  await eventually('reports of the slow clock', async () => ((await drill.server.storedSeqs()).length >= 3 ? true : undefined));
  // The findings engine judges the host while it reports, for many times the 3 intervals of silence that raise a finding.
  const silenceFindings: string[] = [];
  for (const until = Date.now() + 12 * INTERVAL_S * 1000; Date.now() < until; ) {
    const findings = await runFindingsCycle();
    silenceFindings.push(...findings.filter((f) => f.ruleId === 'agent.stopped-reporting').map((f) => f.message));
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_S * 1000));
  }
  agent.child.kill('SIGTERM');
  expect(await agent.exited).toBe(0);
  expect(silenceFindings).toEqual([]);

  const { getDb } = await import('../../lib/db');
  const rows = await rowsOf<{ seq: number; late_ms: number }>((await getDb()).sql,
    'SELECT seq, extract(epoch FROM received_at - ts)::float8 * 1000 AS late_ms FROM report_ledger ORDER BY seq',
  );
  const lateMs = rows.map((r) => r.late_ms);
  expect(Math.min(...lateMs)).toBeGreaterThan(SKEW_MS - 30_000);
  expect(Math.max(...lateMs)).toBeLessThan(SKEW_MS + 30_000);
  expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: producedReports(stateDir()) }, (_, seq) => seq));
  expect(clockWarning(agent)).toMatchObject({ level: 'warn', msg: expect.stringContaining('behind the server'), clockAheadS: expect.closeTo(-600, -1) });
});

test('a clock 10 minutes ahead: reports are refused once and kept in the spool; after the clock is set right new ones go at once', { timeout: 120_000 }, async () => {
  const storedBefore = (await drill.server.storedSeqs()).length;
  const answersBefore = drill.server.answers.length;
  const ahead = startAgent(SKEW_MS);
  await eventually('the agent holding its reports', async () =>
    ahead.logs.some((line) => line.msg.includes('wait in the spool until its clock reaches them')) ? true : undefined,
  );
  const producedAhead = await eventually('ten reports held', async () => {
    const spooled = spooledSeqs(stateDir());
    return spooled.length >= 10 ? spooled : undefined;
  });
  ahead.child.kill('SIGTERM');
  expect(await ahead.exited).toBe(0);

  const refused = drill.server.answers.slice(answersBefore).filter((a) => a.status === 400);
  // One refusal taught it the server's clock; it did not send them again to be refused every second.
  expect(refused.length).toBeGreaterThanOrEqual(1);
  expect(refused.length).toBeLessThanOrEqual(2);
  expect(JSON.stringify(refused[0]!.body)).toContain('minutes in the future');
  expect((await drill.server.storedSeqs()).length).toBe(storedBefore);
  expect(clockWarning(ahead)).toMatchObject({ level: 'warn', msg: expect.stringContaining('ahead of the server'), clockAheadS: expect.closeTo(600, -1) });
  expect(ahead.logs.some((line) => /dropping|dropped/.test(line.msg))).toBe(false);

  // The clock set right (and the agent restarted): its new reports are stored at once, the early ones still wait.
  const heldSeqs = spooledSeqs(stateDir());
  const righted = startAgent(0);
  const firstRightSeq = heldSeqs.at(-1)! + 1;
  await eventually('reports stamped right', async () => ((await drill.server.storedSeqs()).filter((seq) => seq >= firstRightSeq).length >= 3 ? true : undefined));
  righted.child.kill('SIGTERM');
  expect(await righted.exited).toBe(0);
  const stored = await drill.server.storedSeqs();
  expect(stored.filter((seq) => heldSeqs.includes(seq))).toEqual([]);
  expect(spooledSeqs(stateDir()).slice(0, heldSeqs.length)).toEqual(heldSeqs);
  expect(heldSeqs.length).toBeGreaterThanOrEqual(producedAhead.length);
  expect(new Set(stored).size).toBe(stored.length);
});
