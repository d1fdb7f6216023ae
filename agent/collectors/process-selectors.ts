import path from 'node:path';
import type { ProcessContainer } from '../../lib/protocol';

const COMM_MAX_LENGTH = 15;

/**
 * One --watch-process value: NAME, container:ID (an id or its first 4+ hex digits), pod:UID (a uid or its start),
 * or NAME@container:ID / NAME@pod:UID for the processes of that name in it.
 */
export interface ProcessSelector {
  name: string | null;
  containerIdPrefix: string | null;
  podUidPrefix: string | null;
}

export function parseProcessSelector(text: string): ProcessSelector {
  const match = /^(?:(.+)@)?(container|pod):(.*)$/.exec(text);
  if (!match) return { name: text, containerIdPrefix: null, podUidPrefix: null };
  const [, name = null, kind, given = ''] = match;
  const value = given.toLowerCase();
  if (kind === 'container') {
    if (!/^[0-9a-f]{4,64}$/.test(value)) {
      throw new Error(`"${text}": container: takes a container id or its first 4 or more hex digits, e.g. container:9c1b2d3e4f5a`);
    }
    return { name, containerIdPrefix: value, podUidPrefix: null };
  }
  // The systemd cgroup driver writes the uid with underscores; kubectl shows it with dashes.
  const uid = value.replaceAll('_', '-');
  if (!/^[0-9a-f][0-9a-f-]{3,35}$/.test(uid)) {
    throw new Error(`"${text}": pod: takes a pod uid or its first 4 or more characters, e.g. pod:3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b`);
  }
  return { name, containerIdPrefix: null, podUidPrefix: uid };
}

/**
 * A process matches NAME by its comm (the kernel truncates it to 15 chars), its executable's basename, or the
 * basename of its first non-option argument (`python3 server.py` matches "server.py" and "python3").
 */
export function matchesProcessName(name: string, comm: string, argv: string[]): boolean {
  if (comm === name || (name.length > COMM_MAX_LENGTH && comm === name.slice(0, COMM_MAX_LENGTH))) return true;
  const [exe, ...args] = argv;
  if (exe !== undefined && path.posix.basename(exe) === name) return true;
  const script = args.find((arg) => !arg.startsWith('-'));
  return script !== undefined && path.posix.basename(script) === name;
}

/** `containerOf` is asked only when the selector names a container or pod, so other selectors cost no cgroup read. */
export function selectorMatches(
  selector: ProcessSelector,
  comm: string,
  argv: string[],
  containerOf: () => ProcessContainer | null,
): boolean {
  if (selector.name !== null && !matchesProcessName(selector.name, comm, argv)) return false;
  if (selector.containerIdPrefix !== null) return containerOf()?.id.startsWith(selector.containerIdPrefix) ?? false;
  if (selector.podUidPrefix !== null) return containerOf()?.pod?.uid.startsWith(selector.podUidPrefix) ?? false;
  return true;
}
