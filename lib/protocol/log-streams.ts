/** What a log stream is to the guard: something that reports a failed write as an 'error' event. */
interface LogStream {
  on(event: 'error', listener: (err: NodeJS.ErrnoException) => void): unknown;
}

export type LogStreamName = 'stdout' | 'stderr';

/**
 * Drops a write to stdout or stderr that failed (its reader went away: EPIPE, a closed terminal's EIO, a restarted
 * journald) and reports it, instead of letting it become an uncaught exception: the agent died of it, and Next logs
 * uncaught exceptions to stderr, where each failed line failed the next one (a busy loop that starved the event loop).
 * Node never destroys stdio for good, so later writes fail and are dropped the same way. The server and the agent
 * share it through lib/protocol, the one part of lib/ both may import, hence no imports of its own.
 */
export function guardLogStreams(
  onDropped: (stream: LogStreamName, err: NodeJS.ErrnoException) => void,
  streams: Record<LogStreamName, LogStream> = { stdout: process.stdout, stderr: process.stderr },
): void {
  for (const name of ['stdout', 'stderr'] as const) {
    streams[name].on('error', (err) => onDropped(name, err));
  }
}
