import type { ChildProcess } from 'node:child_process';

export { guardLogStreams } from '../protocol/log-streams';

/**
 * Passes a child's output on through this process's log streams. A child that inherited them instead would take
 * the failed writes itself once their reader went away, and die of them; this process drops them.
 */
export function pipeChildOutput(child: ChildProcess): void {
  child.stdout?.on('data', (chunk: Buffer) => process.stdout.write(chunk));
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
}
