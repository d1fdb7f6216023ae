import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Unavailable } from '../../lib/protocol';
import { boundedText } from './values';

export function rootedPath(root: string, ...parts: string[]): string {
  return path.join(root, ...parts);
}

// procfs and sysfs files are generated in memory, so a synchronous read is cheap; the async API sent each
// read through the libuv thread pool (open, fstat, read, close: four hand-offs), which dominated the agent's CPU.
// So these read synchronously, and say so in their type: a caller never waits on them.
export function readRooted(root: string, ...parts: string[]): string {
  return readFileSync(rootedPath(root, ...parts), 'utf8');
}

/** Reads a file, or returns undefined when it does not exist or cannot be read. */
export function readOptional(root: string, ...parts: string[]): string | undefined {
  try {
    return readFileSync(rootedPath(root, ...parts), 'utf8');
  } catch {
    return undefined;
  }
}

/** `{ unavailable: reason }` within the protocol's bounds: reasons quote paths and file text, which can be anything. */
export function unavailable(reason: string): Unavailable {
  return { unavailable: boundedText(reason, 500) || 'unavailable' };
}

export function unavailableFrom(err: unknown, what: string): Unavailable {
  const code = (err as NodeJS.ErrnoException)?.code;
  const reason =
    code === 'ENOENT' ? 'not present on this kernel' :
    code === 'EACCES' || code === 'EPERM' ? 'permission denied' :
    err instanceof Error ? err.message : String(err);
  return unavailable(`${what}: ${reason}`);
}
