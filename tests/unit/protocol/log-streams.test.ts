import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';

const guardModule = path.resolve(import.meta.dirname, '../../../lib/protocol/log-streams.ts');

// A process that logs as the server does: Next's uncaught-exception handler writes to stderr. It exits once its
// writes have failed a few times, and stays in the loop for good if a failed write is rethrown.
const loggingProcess = `
  import { guardLogStreams } from ${JSON.stringify(guardModule)};
  process.on('uncaughtException', (err) => console.error(err));
  const dropped = { stdout: 0, stderr: 0 };
  guardLogStreams((stream) => { dropped[stream] += 1; });
  setInterval(() => {
    console.log('a log line');
    console.error('a warning');
    if (dropped.stdout >= 3 && dropped.stderr >= 3) process.exit(0);
  }, 10);
`;

let child: ChildProcess | undefined;
afterEach(() => {
  if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

test('a process whose log reader went away drops its failed writes, counts them, and carries on', async () => {
  child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', loggingProcess], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.destroy();
  child.stderr!.destroy();
  const [code] = await once(child, 'exit');
  expect(code).toBe(0);
}, 60_000);
