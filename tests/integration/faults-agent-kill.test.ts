import { expect, test } from 'vitest';
import type { IngestResponse } from '../../lib/protocol';
import { eventually } from '../support/live-agent';
import { isEverySeqOnce, killAgent, producedReports, setUpDrill } from '../support/fault-drill';
import { rowsOf } from '../support/rows';

// Fault drill: the agent is SIGKILLed while a delivery is in flight. The request has reached the server, which
// stores it after the agent is gone, so the acknowledgement is lost: the restarted agent sends those reports again
// and the server, which dedups by (host, seq), stores them once.
const drill = setUpDrill('kill');

test('an agent SIGKILLed mid-delivery and restarted on the same state dir gets every report stored exactly once', { timeout: 150_000 }, async () => {
  const { server, stateDir } = drill;
  const start = (args: string[] = []) => drill.startAgent({ intervalS: 0.5, args: ['--retry-max', '1', ...args] });
  const first = start();
  await eventually('the first reports', async () => ((await server.storedSeqs()).length >= 3 ? true : undefined));

  server.setGate('hold');
  await server.held();
  await killAgent(first, 'SIGKILL');
  const [held] = await server.release();
  const heldBody = held!.body as IngestResponse;
  expect(held!.status).toBe(200);
  expect(heldBody.accepted).toBeGreaterThan(0);
  const heldSeqs = heldBody.acknowledgedSeqs;
  server.setGate('pass');

  const answersBefore = server.answers.length;
  const second = start();
  await eventually('the lost acknowledgement answered as duplicates, and new reports after them', async () => {
    const resent = server.answers.slice(answersBefore).some((a) => (a.body as IngestResponse).duplicate >= heldSeqs.length);
    const stored = await server.storedSeqs();
    return resent && stored.at(-1)! >= heldSeqs.at(-1)! + 3 ? true : undefined;
  });
  second.child.kill('SIGTERM');
  expect(await second.exited).toBe(0);

  // A last --once run sends whatever the stopped agent left in its spool, then its own report.
  expect(await start(['--once']).exited).toBe(0);
  const seqs = await server.storedSeqs();
  const produced = producedReports(stateDir);
  expect({ produced, everySeqOnce: isEverySeqOnce(seqs, produced) }).toEqual({ produced, everySeqOnce: true });
  const { getDb } = await import('../../lib/db');
  const [samples] = await rowsOf<{ n: number }>((await getDb()).sql, 'SELECT count(*)::int AS n FROM host_samples');
  expect(samples!.n).toBe(produced);
});
