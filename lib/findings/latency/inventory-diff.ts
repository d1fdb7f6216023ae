import { isUnavailable, type Inventory, type ProcessInventory } from '../../protocol';

/** A thread count that moved by less than this factor is churn, not a change of pool size. */
const THREAD_CHANGE_FACTOR = 1.25;

const show = (value: unknown) => (value === null || value === undefined || value === '' ? 'unset' : String(value));

function changed(label: string, before: unknown, after: unknown): string[] {
  return show(before) === show(after) ? [] : [`${label} ${show(before)} → ${show(after)}`];
}

function cgroupText(cgroup: { quotaCores: number | null; cpusetCpus: string | null } | null | undefined) {
  return { quota: cgroup?.quotaCores ?? 'none', cpuset: cgroup?.cpusetCpus ?? 'all' };
}

function runtimesOf(p: ProcessInventory): string | null {
  return p.runtimes ? p.runtimes.map((r) => r.id).sort().join(', ') || 'none' : null;
}

function diffProcess(before: ProcessInventory, after: ProcessInventory): string[] {
  const name = after.name;
  const out: string[] = [];
  if (before.pid !== after.pid) out.push(`${name} restarted (pid ${before.pid} → ${after.pid})`);
  const keys = [...new Set([...Object.keys(before.env), ...Object.keys(after.env)])].sort();
  for (const key of keys) out.push(...changed(`${name} ${key}`, before.env[key], after.env[key]));
  out.push(...changed(`${name} CPUs allowed`, before.cpusAllowedList, after.cpusAllowedList));
  const [cb, ca] = [cgroupText(before.cgroup), cgroupText(after.cgroup)];
  out.push(...changed(`${name} cgroup CPU quota`, cb.quota, ca.quota), ...changed(`${name} cgroup cpuset`, cb.cpuset, ca.cpuset));
  const ratio = Math.max(before.threads, after.threads) / Math.max(1, Math.min(before.threads, after.threads));
  if (ratio >= THREAD_CHANGE_FACTOR) out.push(`${name} threads ${before.threads} → ${after.threads}`);
  const [rb, ra] = [runtimesOf(before), runtimesOf(after)];
  if (rb !== null && ra !== null) out.push(...changed(`${name} runtimes`, rb, ra));
  return out;
}

/**
 * What changed between two inventory snapshots that can change latency: kernel, CPUs, the host's cgroup, disks'
 * schedulers, and per watched process its pid (a restart), thread variables, allowed CPUs, cgroup and runtimes.
 */
export function diffInventories(before: Inventory, after: Inventory): string[] {
  const out = [
    ...changed('kernel', before.host.kernel, after.host.kernel),
    ...changed('online CPUs', before.host.onlineCpus, after.host.onlineCpus),
  ];
  const [cpuBefore, cpuAfter] = [before.cpu, after.cpu];
  if (!isUnavailable(cpuBefore) && !isUnavailable(cpuAfter)) {
    out.push(...changed('CPU model', cpuBefore.model, cpuAfter.model));
    const lost = cpuBefore.flags.filter((f) => !cpuAfter.flags.includes(f) && /^(avx|fma|amx)/.test(f));
    if (lost.length) out.push(`CPU flags lost: ${lost.join(', ')}`);
  }
  if (!isUnavailable(before.cgroup) && !isUnavailable(after.cgroup)) {
    const [cb, ca] = [cgroupText(before.cgroup), cgroupText(after.cgroup)];
    out.push(...changed('host cgroup CPU quota', cb.quota, ca.quota), ...changed('host cgroup cpuset', cb.cpuset, ca.cpuset));
  }
  if (!isUnavailable(before.disks) && !isUnavailable(after.disks)) {
    for (const disk of after.disks) {
      const old = before.disks.find((d) => d.device === disk.device);
      if (old) out.push(...changed(`${disk.device} scheduler`, old.scheduler, disk.scheduler));
    }
  }
  const [was, now] = [byName(before.processes), byName(after.processes)];
  for (const name of new Set([...was.keys(), ...now.keys()])) {
    const [a, b] = [was.get(name) ?? [], now.get(name) ?? []];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (a[i] && b[i]) out.push(...diffProcess(a[i]!, b[i]!));
      else out.push(`${name} ${b[i] ? 'started' : 'gone'}`);
    }
  }
  return out;
}

/** Watched processes by name, in report order: workers of one service share a name and pair up by position. */
function byName(processes: readonly ProcessInventory[]): Map<string, ProcessInventory[]> {
  const map = new Map<string, ProcessInventory[]>();
  for (const p of processes) map.set(p.name, [...(map.get(p.name) ?? []), p]);
  return map;
}
