import { readdirSync, readFileSync, readlinkSync, type Dirent } from 'node:fs';
import path from 'node:path';
import { parseMountinfo } from '../mountinfo';
import { readOptional } from '../read';
import type { CgroupMembership } from './parse';

export interface CgroupMount {
  version: 1 | 2;
  /** The group of the hierarchy mounted there ("/" unless a namespace or bind mount shows a subtree). */
  root: string;
  mountPoint: string;
  controllers: string[];
}

export function parseCgroupMounts(mountinfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const { fsType, root, mountPoint, superOptions } of parseMountinfo(mountinfo)) {
    if (fsType !== 'cgroup' && fsType !== 'cgroup2') continue;
    mounts.push({ version: fsType === 'cgroup2' ? 2 : 1, root, mountPoint, controllers: fsType === 'cgroup' ? superOptions.split(',') : [] });
  }
  return mounts;
}

/**
 * Where the CPU controllers live: one cgroup2 hierarchy, or up to three v1 hierarchies. `namespaceRoot`: the agent
 * runs in its own cgroup namespace rooted at this group of the host's hierarchy, which is how every path it reads
 * from /proc/<pid>/cgroup is relative (see readLayout).
 */
export type CgroupLayout =
  | { version: 2; unified: CgroupMount; namespaceRoot?: string }
  | { version: 1; cpu?: CgroupMount; cpuacct?: CgroupMount; cpuset?: CgroupMount };

/** A controller can be bound to one hierarchy only, so a v1 cpu/cpuacct mount means v2 has no cpu controller. */
export function chooseCgroupLayout(mounts: CgroupMount[]): CgroupLayout | null {
  const v1 = (controller: string) => mounts.find((m) => m.version === 1 && m.controllers.includes(controller));
  const cpu = v1('cpu');
  const cpuacct = v1('cpuacct');
  if (cpu || cpuacct) return { version: 1, cpu, cpuacct, cpuset: v1('cpuset') };
  const unified = mounts.find((m) => m.version === 2 && m.mountPoint === '/sys/fs/cgroup') ?? mounts.find((m) => m.version === 2);
  return unified ? { version: 2, unified } : null;
}

/**
 * The mounts that --sys-root shows. With /proc elsewhere (a container's /host/proc), "self" is the agent's own
 * container, whose cgroup mounts show only its own group (v1) or sit at other paths: the host's are pid 1's.
 */
function readHostMountinfo(procRoot: string): string | undefined {
  if (path.resolve(procRoot) === '/proc') return readOptional(procRoot, 'self/mountinfo');
  return readOptional(procRoot, '1/mountinfo') ?? readOptional(procRoot, 'self/mountinfo');
}

/** The layout, or the reason there is none. */
export function readLayout(procRoot: string, sysRoot: string): CgroupLayout | string {
  const mountinfo = readHostMountinfo(procRoot);
  if (mountinfo === undefined) return '/proc/self/mountinfo not readable';
  const key = `${procRoot}\0${sysRoot}\0${mountinfo}`;
  if (key !== lastLayout.key) {
    const layout = chooseCgroupLayout(parseCgroupMounts(mountinfo)) ?? 'no cgroup2 or v1 cpu/cpuacct mount in /proc/self/mountinfo';
    lastLayout = { key, layout: typeof layout === 'string' ? layout : inHostTerms(layout, procRoot, sysRoot) };
  }
  return lastLayout.layout;
}

// mountinfo is read several times per report and almost never changes; parsing it was a visible share of the CPU.
let lastLayout: { key: string; layout: CgroupLayout | string } = { key: '', layout: '' };

/**
 * Read from a container with its own cgroup namespace (Kubernetes on cgroup v2), the host's cgroup2 mount has the
 * root "/../../.." and every process's group is relative to the agent's own container group. That group is found
 * once, as the one at that depth whose cgroup.procs lists this process ("self" of the host's /proc); from then on
 * paths are the host's. When it cannot be found, the layout stays as read (host root only; pods out of reach).
 */
function inHostTerms(layout: CgroupLayout, procRoot: string, sysRoot: string): CgroupLayout {
  if (layout.version !== 2) return layout;
  const depth = upCount(layout.unified.root);
  if (depth === 0 || depth !== layout.unified.root.split('/').filter(Boolean).length) return layout;
  let self: string;
  try {
    self = readlinkSync(path.join(procRoot, 'self'));
  } catch {
    return layout;
  }
  const namespaceRoot = findGroupOf(mountPointUnder(sysRoot, layout.unified.mountPoint), depth, self);
  return namespaceRoot === null ? layout : { version: 2, unified: { ...layout.unified, root: '/' }, namespaceRoot };
}

const upCount = (groupPath: string) => {
  const parts = groupPath.split('/').filter(Boolean);
  const firstName = parts.findIndex((part) => part !== '..');
  return firstName === -1 ? parts.length : firstName;
};

/** The group, `depth` levels below the hierarchy's root at `dir`, whose cgroup.procs lists `pid`; null if none. */
function findGroupOf(dir: string, depth: number, pid: string): string | null {
  let level = [''];
  let visited = 0;
  for (let d = 0; d < depth; d++) {
    const next: string[] = [];
    for (const group of level) {
      let entries: Dirent[];
      try {
        entries = readdirSync(path.join(dir, group), { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) if (entry.isDirectory()) next.push(`${group}/${entry.name}`);
      // A bound on a pathological tree: the search runs once, but must not walk a huge one.
      if ((visited += entries.length) > 50_000) return null;
    }
    level = next;
  }
  for (const group of level) {
    try {
      if (readFileSync(path.join(dir, group, 'cgroup.procs'), 'utf8').split('\n').includes(pid)) return group;
    } catch {
      // a group that went away while searching
    }
  }
  return null;
}

/** A group path read inside the agent's cgroup namespace ("/../../x", "/", "/y") as a path of the host's hierarchy. */
export function hostGroupPath(namespaceRoot: string, groupPath: string): string | null {
  const parts = groupPath.split('/').filter(Boolean);
  const ups = upCount(groupPath);
  const base = namespaceRoot.split('/').filter(Boolean);
  if (ups > base.length || parts.slice(ups).includes('..')) return null;
  return `/${[...base.slice(0, base.length - ups), ...parts.slice(ups)].join('/')}`;
}

/** Maps a mount point from mountinfo (e.g. /sys/fs/cgroup/cpu) into the configured sysRoot. */
export function mountPointUnder(sysRoot: string, mountPoint: string): string {
  if (mountPoint === '/sys' || mountPoint.startsWith('/sys/')) return path.join(sysRoot, mountPoint.slice('/sys'.length));
  return path.join(path.dirname(sysRoot), mountPoint);
}

/** A group as it sits in one hierarchy. */
export type GroupIn = [CgroupMount, string];

/** The directory of a group, or null when the group lies outside what this mount shows. */
export function groupDir(sysRoot: string, [mount, groupPath]: GroupIn): string | null {
  // Read from a container with its own cgroup namespace, the host's hierarchy root shows as "/../..": it is the mount.
  if (groupPath === mount.root) return mountPointUnder(sysRoot, mount.mountPoint);
  // A group outside our cgroup namespace shows as "/../..": it cannot be reached from this mount.
  if (groupPath.split('/').includes('..')) return null;
  const relative = path.posix.relative(mount.root, groupPath);
  if (relative.startsWith('..') || path.posix.isAbsolute(relative)) return null;
  return path.join(mountPointUnder(sysRoot, mount.mountPoint), relative);
}

export const readIn = (sysRoot: string, group: GroupIn, file: string) => {
  const dir = groupDir(sysRoot, group);
  return dir === null ? Promise.resolve(undefined) : readOptional(dir, file);
};

/** The group and its ancestors up to the mount's root, innermost first. */
export function lineage([mount, groupPath]: GroupIn): GroupIn[] {
  const paths: GroupIn[] = [[mount, groupPath]];
  let current = groupPath;
  while (current !== mount.root && current !== '/') {
    current = path.posix.dirname(current);
    paths.push([mount, current]);
  }
  return paths;
}

/** The group to sample for "the host": the broadest group this agent can see, i.e. the mount's root. */
export const HOST_GROUP = '/';

function pathFor(target: string | CgroupMembership, mount: CgroupMount, controller: string | null, namespaceRoot?: string): string | null {
  if (typeof target === 'string') return target === HOST_GROUP ? mount.root : target;
  const groupPath = controller === null ? target.unified : (target.v1[controller] ?? null);
  return groupPath !== null && namespaceRoot !== undefined ? hostGroupPath(namespaceRoot, groupPath) : groupPath;
}

export interface ResolvedGroup {
  version: 1 | 2;
  path: string;
  /** The group per role; v2 uses the unified hierarchy for every role. */
  quota: GroupIn | null;
  usage: GroupIn | null;
  cpuset: GroupIn | null;
}

export function resolveGroup(layout: CgroupLayout, target: string | CgroupMembership): ResolvedGroup | null {
  const pick = (mount: CgroupMount | undefined, controller: string | null): GroupIn | null => {
    if (!mount) return null;
    const groupPath = pathFor(target, mount, controller, layout.version === 2 ? layout.namespaceRoot : undefined);
    return groupPath === null ? null : [mount, groupPath];
  };
  if (layout.version === 2) {
    const unified = pick(layout.unified, null);
    return unified && { version: 2, path: unified[1], quota: unified, usage: unified, cpuset: unified };
  }
  const quota = pick(layout.cpu, 'cpu');
  const usage = pick(layout.cpuacct, 'cpuacct');
  const cpuset = pick(layout.cpuset, 'cpuset');
  const main = quota ?? usage;
  return main && { version: 1, path: main[1], quota, usage, cpuset };
}
