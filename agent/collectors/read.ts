import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Unavailable } from '../../lib/protocol';

export function rootedPath(root: string, ...parts: string[]): string {
  return path.join(root, ...parts);
}

export async function readRooted(root: string, ...parts: string[]): Promise<string> {
  return readFile(rootedPath(root, ...parts), 'utf8');
}

/** Reads a file, or returns undefined when it does not exist or cannot be read. */
export async function readOptional(root: string, ...parts: string[]): Promise<string | undefined> {
  try {
    return await readRooted(root, ...parts);
  } catch {
    return undefined;
  }
}

export function unavailableFrom(err: unknown, what: string): Unavailable {
  const code = (err as NodeJS.ErrnoException)?.code;
  const reason =
    code === 'ENOENT' ? 'not present on this kernel' :
    code === 'EACCES' || code === 'EPERM' ? 'permission denied' :
    err instanceof Error ? err.message : String(err);
  return { unavailable: `${what}: ${reason}` };
}
