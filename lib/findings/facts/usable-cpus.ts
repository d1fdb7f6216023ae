import { parseCpuList } from '../../protocol/cpu-list';
import { isUnavailable, type Inventory, type ProcessInventory } from '../../protocol';
import { formatCpuList } from '../format';

interface AffinityEntry {
  online: number;
  cpus: readonly number[];
  set: ReadonlySet<number> | null;
  text: string | null;
}
// Inventory snapshots are immutable and kept across cycles, and every rule asks about the same processes: what is
// derived from one is computed once. Keyed by the process, checked against what it was derived from.
const affinityCache = new WeakMap<ProcessInventory, AffinityEntry>();

/** CPU lists repeat across a fleet ("0-63"): each distinct list is parsed once, up to a bound. */
const parsedLists = new Map<string, readonly number[]>();
const MAX_PARSED_LISTS = 4096;

export function cpuListOf(text: string): readonly number[] {
  let cpus = parsedLists.get(text);
  if (!cpus) {
    if (parsedLists.size >= MAX_PARSED_LISTS) parsedLists.clear();
    cpus = Object.freeze(parseCpuList(text));
    parsedLists.set(text, cpus);
  }
  return cpus;
}

export interface UsableCpus {
  /** What the processes may use at once: min(their affinity, their cgroups' effective CPUs, online CPUs). */
  count: number;
  /** The CPUs their affinity masks allow, when fewer than the online CPUs. */
  cpuset: number[] | null;
  /** The CFS quota in cores, when one is set below the online CPUs. */
  quotaCores: number | null;
  online: number;
}

export const onlineList = (online: number): number[] => Array.from({ length: online }, (_, cpu) => cpu);

function affinityOf(process: ProcessInventory, online: number) {
  const cached = affinityCache.get(process);
  if (cached?.online === online) return cached;
  const all = cpuListOf(process.cpusAllowedList);
  const listed = all.length && all[all.length - 1]! < online ? all : all.filter((cpu) => cpu < online);
  const cpus = listed.length ? listed : onlineList(online);
  const entry: AffinityEntry = { online, cpus, set: null, text: null };
  affinityCache.set(process, entry);
  return entry;
}

/** The CPUs a process's affinity mask allows (all online CPUs when the list is missing), sorted. */
export function affinityCpus(process: ProcessInventory, online: number): readonly number[] {
  return affinityOf(process, online).cpus;
}

export function affinitySet(process: ProcessInventory, online: number): ReadonlySet<number> {
  const entry = affinityOf(process, online);
  return (entry.set ??= new Set(entry.cpus));
}

/** The same CPUs as a person reads them: "0–7". */
export function affinityText(process: ProcessInventory, online: number): string {
  const entry = affinityOf(process, online);
  return (entry.text ??= formatCpuList(entry.cpus));
}

/**
 * The CPUs one process, or the workers of a service together, may use: the union of their affinity masks, capped
 * by their cgroups (each distinct group counted once; a process without its own group counts the host's).
 */
export function usableCpus(processes: readonly ProcessInventory[], inventory: Inventory): UsableCpus {
  const single = processes.length === 1 ? processes[0]! : null;
  const cached = single && usableCache.get(single);
  if (cached?.inventory === inventory) return cached.usable;
  const usable = computeUsable(processes, inventory);
  if (single) usableCache.set(single, { inventory, usable });
  return usable;
}

const usableCache = new WeakMap<ProcessInventory, { inventory: Inventory; usable: UsableCpus }>();

/** The union of the workers' affinity masks; workers usually share one list, then it is that list's set. */
function unionOfAffinities(processes: readonly ProcessInventory[], online: number): ReadonlySet<number> {
  const first = processes[0]!;
  if (processes.every((p) => p.cpusAllowedList === first.cpusAllowedList)) return affinitySet(first, online);
  const union = new Set<number>();
  for (const process of processes) for (const cpu of affinityCpus(process, online)) union.add(cpu);
  return union;
}

function computeUsable(processes: readonly ProcessInventory[], inventory: Inventory): UsableCpus {
  const online = inventory.host.onlineCpus;
  const allowed = processes.length ? unionOfAffinities(processes, online) : new Set<number>();
  const hostGroup = isUnavailable(inventory.cgroup) ? null : inventory.cgroup;
  const groups = new Map<string, { effectiveCpus: number; quotaCores: number | null }>();
  for (const process of processes) {
    const group = process.cgroup ?? hostGroup;
    if (group) groups.set(group.path, group);
  }
  const grouped = [...groups.values()];
  const groupCpus = grouped.length ? grouped.reduce((sum, g) => sum + g.effectiveCpus, 0) : Infinity;
  const quotas = grouped.map((g) => g.quotaCores);
  const quotaCores = quotas.length && quotas.every((q) => q !== null) ? quotas.reduce<number>((sum, q) => sum + q!, 0) : null;
  const count = Math.min(allowed.size, groupCpus, online);
  return {
    count,
    cpuset: allowed.size < online ? [...allowed].sort((a, b) => a - b) : null,
    quotaCores: quotaCores !== null && quotaCores < online ? quotaCores : null,
    online,
  };
}

/** 4 → "4", 2.5 → "2.5", 1.333 → "1.33": CPU counts, which quotas make fractional. */
export function fmtCpus(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/** "4 usable CPUs (cpuset 0–3, quota 4)"; "8 usable CPUs (no cpuset or quota)". */
export function describeUsable(usable: UsableCpus): string {
  const limits = [
    ...(usable.cpuset ? [`cpuset ${formatCpuList(usable.cpuset)}`] : []),
    ...(usable.quotaCores !== null ? [`quota ${fmtCpus(usable.quotaCores)}`] : []),
  ];
  const noun = usable.count === 1 ? 'CPU' : 'CPUs';
  return `${fmtCpus(usable.count)} usable ${noun} (${limits.length ? limits.join(', ') : 'no cpuset or quota'})`;
}

/** Threads per worker that fit: the usable CPUs shared out, at least one each. */
export function fittingThreads(usable: number, workers: number): number {
  return Math.max(1, Math.floor(usable / Math.max(1, workers)));
}

