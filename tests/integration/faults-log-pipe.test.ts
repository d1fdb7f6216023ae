import { expect, test } from 'vitest';
import { eventually } from '../support/live-agent';
import { setUpDrill } from '../support/fault-drill';

// Fault drill: journald restarts (or the terminal the agent ran in closes) and the agent's stdout and stderr lose
// their reader. Every later write fails with EPIPE; the agent drops those lines and goes on reporting.
const drill = setUpDrill('pipe');

test('an agent whose stdout and stderr readers went away keeps delivering reports and exits 0 on SIGTERM', { timeout: 120_000 }, async () => {
  // --print writes every report to stdout, so each interval after the close meets a broken pipe.
  const { server } = drill;
  const agent = drill.startAgent({ intervalS: 0.5, args: ['--print'] });
  await eventually('the first reports', async () => ((await server.storedSeqs()).length >= 2 ? true : undefined));
  expect(agent.logs.map((line) => line.msg)).toContain('agent started');

  agent.child.stdout!.destroy();
  agent.child.stderr!.destroy();
  const storedAtClose = (await server.storedSeqs()).length;
  await eventually('reports delivered after the log pipes closed', async () => {
    if (agent.child.exitCode !== null) throw new Error(`the agent exited with ${agent.child.exitCode}`);
    return (await server.storedSeqs()).length >= storedAtClose + 4 ? true : undefined;
  });

  // Stopping logs twice more to the closed stderr.
  agent.child.kill('SIGTERM');
  expect(await agent.exited).toBe(0);
  const seqs = await server.storedSeqs();
  expect(seqs).toEqual(seqs.map((_, i) => i));
});
