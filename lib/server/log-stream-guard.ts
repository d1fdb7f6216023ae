import type { ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';

export type LogStreamName = 'stdout' | 'stderr';

/**
 * Drops a write to stdout or stderr that failed (its reader went away: EPIPE, a closed terminal's EIO) and reports
 * it, instead of letting it become an uncaught exception. Next logs uncaught exceptions to stderr, and Node never
 * destroys stdio for good, so each failed line failed the next one: a busy loop that starved the event loop.
 */
export function guardLogStreams(
  onDropped: (stream: LogStreamName, err: NodeJS.ErrnoException) => void,
  streams: Record<LogStreamName, Writable> = { stdout: process.stdout, stderr: process.stderr },
): void {
  for (const name of ['stdout', 'stderr'] as const) {
    streams[name].on('error', (err: NodeJS.ErrnoException) => onDropped(name, err));
  }
}

/**
 * Passes a child's output on through this process's log streams. A child that inherited them instead would take
 * the failed writes itself once their reader went away, and die of them; this process drops them.
 */
export function pipeChildOutput(child: ChildProcess): void {
  child.stdout?.on('data', (chunk: Buffer) => process.stdout.write(chunk));
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
}
