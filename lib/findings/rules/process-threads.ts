import { parseCpuList } from '../../protocol/cpu-list';
import { isUnavailable, type Inventory, type ProcessInventory, type RuntimeId } from '../../protocol';
import { formatCpuList } from './helpers';

/**
 * What a watched process may run and how many threads its runtimes start, from the inventory alone. The sizing
 * rules below follow each runtime's own source and documentation (see docs/findings/threads.oversubscribed.md).
 */

export const RUNTIME_NAMES: Record<RuntimeId, string> = {
  'intel-openmp': 'Intel OpenMP (libiomp5)',
  'llvm-openmp': 'LLVM OpenMP (libomp)',
  'gnu-openmp': 'GNU OpenMP (libgomp)',
  mkl: 'Intel MKL',
  onednn: 'oneDNN',
  'openblas-pthreads': 'OpenBLAS (pthreads)',
  'openblas-openmp': 'OpenBLAS (OpenMP)',
  openblas: 'OpenBLAS',
  blis: 'BLIS',
  tensorflow: 'TensorFlow',
  pytorch: 'PyTorch',
  onnxruntime: 'ONNX Runtime',
};

/** Intel's runtime and LLVM's libomp (its open-source descendant) share the KMP_* knobs and their defaults. */
export const KMP_RUNTIMES = ['intel-openmp', 'llvm-openmp'] as const satisfies readonly RuntimeId[];

/** Where a pool's size comes from when no variable sets it. */
export type DefaultBasis =
  /** the CPUs in the process's affinity mask (sched_getaffinity): a cpuset counts, a CFS quota does not */
  | 'affinity'
  /** MKL: the OpenMP default, scaled down to physical cores (MKL_DYNAMIC) */
  | 'affinity-physical-cores'
  /** the host's physical cores: neither a cpuset nor a quota counts */
  | 'host-physical-cores'
  /** one thread: the runtime does not parallelise unless told to */
  | 'one';

interface PoolSpec {
  /** Variables that size the intra-op pool, the one the runtime reads first first. */
  variables: readonly string[];
  unsetDefault: DefaultBasis;
  /** The setting that makes the pool n threads, for remedies. */
  setting(n: number): string;
  /** The pool never exceeds the affinity mask however large the variable (OpenBLAS caps at get_num_procs). */
  capsAtAffinity?: boolean;
  /** An OpenMP runtime: OMP_THREAD_LIMIT caps whatever size it picks. */
  openmp?: boolean;
}

const OPENMP_POOL: PoolSpec = { variables: ['OMP_NUM_THREADS'], unsetDefault: 'affinity', setting: (n) => `OMP_NUM_THREADS=${n}`, openmp: true };

const POOLS: Partial<Record<RuntimeId, PoolSpec>> = {
  'intel-openmp': OPENMP_POOL,
  'llvm-openmp': OPENMP_POOL,
  'gnu-openmp': OPENMP_POOL,
  mkl: { variables: ['MKL_NUM_THREADS', 'OMP_NUM_THREADS'], unsetDefault: 'affinity-physical-cores', setting: (n) => `MKL_NUM_THREADS=${n}` },
  'openblas-pthreads': {
    variables: ['OPENBLAS_NUM_THREADS', 'GOTO_NUM_THREADS', 'OMP_NUM_THREADS'],
    unsetDefault: 'affinity',
    setting: (n) => `OPENBLAS_NUM_THREADS=${n}`,
    capsAtAffinity: true,
  },
  // An OpenMP build of OpenBLAS ignores OPENBLAS_NUM_THREADS and GOTO_NUM_THREADS.
  'openblas-openmp': OPENMP_POOL,
  blis: { variables: ['BLIS_NUM_THREADS', 'OMP_NUM_THREADS'], unsetDefault: 'one', setting: (n) => `BLIS_NUM_THREADS=${n}` },
  tensorflow: {
    variables: ['TF_NUM_INTRAOP_THREADS'],
    unsetDefault: 'affinity',
    setting: (n) => `TF_NUM_INTRAOP_THREADS=${n} (or intra_op_parallelism_threads=${n} in code)`,
  },
  pytorch: {
    variables: ['MKL_NUM_THREADS', 'OMP_NUM_THREADS'],
    unsetDefault: 'host-physical-cores',
    setting: (n) => `torch.set_num_threads(${n}) (or OMP_NUM_THREADS=${n})`,
  },
  onnxruntime: { variables: [], unsetDefault: 'host-physical-cores', setting: (n) => `sess_options.intra_op_num_threads = ${n}` },
};

/** Frameworks first: their pool drives the OpenMP and BLAS runtimes beneath them, so it names the finding on a tie. */
const POOL_ORDER: readonly RuntimeId[] = [
  'pytorch', 'tensorflow', 'onnxruntime', 'mkl', 'openblas-pthreads', 'openblas-openmp', 'openblas', 'blis',
  'intel-openmp', 'llvm-openmp', 'gnu-openmp',
];

export interface ThreadPool {
  runtime: RuntimeId;
  threads: number;
  /** The variable that decided the size, or null when the runtime used its default. */
  variable: string | null;
  /** The variable's value as set. */
  value: string | null;
  /** Set when the size is the runtime's default. */
  defaultBasis: DefaultBasis | null;
  /** The setting that makes the pool n threads. */
  setting(n: number): string;
}

/** The runtimes a process loads, or null when they cannot be known (an older agent, or maps unreadable). */
export function runtimesOf(process: ProcessInventory): ReadonlySet<RuntimeId> | null {
  if (process.runtimes === undefined || process.runtimesUnreadable !== undefined) return null;
  return new Set(process.runtimes.map((r) => r.id));
}

/** The process's thread variables, or null when its environment could not be read (then nothing is known unset). */
export function envOf(process: ProcessInventory): Readonly<Record<string, string>> | null {
  return process.envUnreadable === undefined ? process.env : null;
}

/** A thread-count variable as runtimes read it: a positive integer, the first of an OpenMP list ("4,2"). */
export function parseThreadCount(value: string | undefined): number | null {
  if (value === undefined) return null;
  const first = value.split(',')[0]!.trim();
  if (!/^\d+$/.test(first)) return null;
  const n = Number(first);
  return n > 0 ? n : null;
}

const isFalse = (value: string | undefined) => value !== undefined && /^(false|0|no|off)$/i.test(value.trim());

export interface HostCpus {
  online: number;
  /** Physical cores of the host (all sockets), null when the CPU inventory is unavailable. */
  physicalCores: number | null;
}

export function hostCpusOf(inventory: Inventory): HostCpus {
  const cpu = inventory.cpu;
  return { online: inventory.host.onlineCpus, physicalCores: isUnavailable(cpu) ? null : cpu.cores };
}

/** CPUs in the process's affinity mask; the online CPUs when the agent could not count them. */
export function affinityCount(process: ProcessInventory, host: HostCpus): number {
  return process.cpusAllowedCount > 0 ? Math.min(process.cpusAllowedCount, host.online) : host.online;
}

function defaultSize(basis: DefaultBasis, process: ProcessInventory, host: HostCpus): number | null {
  const affinity = affinityCount(process, host);
  switch (basis) {
    case 'affinity':
      return affinity;
    case 'affinity-physical-cores':
      return Math.min(affinity, host.physicalCores ?? affinity);
    case 'host-physical-cores':
      return host.physicalCores;
    case 'one':
      return 1;
  }
}

function poolFrom(runtime: RuntimeId, spec: PoolSpec, env: Readonly<Record<string, string>>, process: ProcessInventory, host: HostCpus, loaded: ReadonlySet<RuntimeId>): ThreadPool | null {
  const pool = uncappedPoolFrom(runtime, spec, env, process, host, loaded);
  const limit = spec.openmp ? parseThreadCount(env.OMP_THREAD_LIMIT) : null;
  return pool && limit !== null && limit < pool.threads ? { ...pool, threads: limit } : pool;
}

function uncappedPoolFrom(runtime: RuntimeId, spec: PoolSpec, env: Readonly<Record<string, string>>, process: ProcessInventory, host: HostCpus, loaded: ReadonlySet<RuntimeId>): ThreadPool | null {
  for (const variable of spec.variables) {
    const n = parseThreadCount(env[variable]);
    if (n === null) continue;
    let threads = n;
    if (spec.capsAtAffinity) threads = Math.min(threads, affinityCount(process, host));
    if (runtime === 'mkl' && !isFalse(env.MKL_DYNAMIC)) threads = Math.min(threads, defaultSize('affinity-physical-cores', process, host)!);
    return { runtime, threads, variable, value: env[variable]!, defaultBasis: null, setting: spec.setting };
  }
  // PyTorch sizes its OpenMP pool from MKL's default when it is built with MKL, from cpuinfo's physical cores otherwise.
  const basis = runtime === 'pytorch' && loaded.has('mkl') ? 'affinity-physical-cores' : spec.unsetDefault;
  const threads = defaultSize(basis, process, host);
  return threads === null ? null : { runtime, threads, variable: null, value: null, defaultBasis: basis, setting: spec.setting };
}

/** OpenBLAS of unknown threading: the pthreads build reads OPENBLAS_NUM_THREADS first, the OpenMP build ignores it. */
function unknownOpenblasPool(env: Readonly<Record<string, string>>, process: ProcessInventory, host: HostCpus, loaded: ReadonlySet<RuntimeId>): ThreadPool | null {
  const asPthreads = poolFrom('openblas', POOLS['openblas-pthreads']!, env, process, host, loaded);
  const asOpenmp = poolFrom('openblas', OPENMP_POOL, env, process, host, loaded);
  if (!asPthreads || !asOpenmp || asPthreads.threads !== asOpenmp.threads) return null;
  return asPthreads;
}

/**
 * The intra-op pool of each threaded runtime the process loads, sized as that runtime sizes it from the
 * environment. null when it cannot be known: runtimes not reported, environment unreadable, or a pool whose size
 * depends on what the agent cannot see (OpenBLAS of unknown threading with conflicting variables).
 */
export function intraOpPools(process: ProcessInventory, inventory: Inventory): ThreadPool[] | null {
  const cached = poolsCache.get(process);
  if (cached?.inventory === inventory) return cached.pools;
  const pools = computePools(process, inventory);
  poolsCache.set(process, { inventory, pools });
  return pools;
}

// Inventory snapshots are immutable and kept across cycles (InventoryCache), and every rule asks about the same
// processes: what is derived from one is computed once. Keyed by the process, checked against its inventory.
const poolsCache = new WeakMap<ProcessInventory, { inventory: Inventory; pools: ThreadPool[] | null }>();
interface AffinityEntry {
  online: number;
  cpus: readonly number[];
  set: ReadonlySet<number> | null;
  text: string | null;
}
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

function computePools(process: ProcessInventory, inventory: Inventory): ThreadPool[] | null {
  const loaded = runtimesOf(process);
  const env = envOf(process);
  if (!loaded || !env) return null;
  const host = hostCpusOf(inventory);
  const pools: ThreadPool[] = [];
  for (const runtime of POOL_ORDER) {
    if (!loaded.has(runtime)) continue;
    const pool = runtime === 'openblas' ? unknownOpenblasPool(env, process, host, loaded) : poolFrom(runtime, POOLS[runtime]!, env, process, host, loaded);
    if (!pool) return null;
    pools.push(pool);
  }
  return pools;
}

/** The pool with the most threads; the framework's on a tie. */
export function largestPool(pools: readonly ThreadPool[]): ThreadPool | null {
  return pools.reduce<ThreadPool | null>((best, pool) => (best === null || pool.threads > best.threads ? pool : best), null);
}

/** Whether the runtime reads its pool size from the environment at all (ONNX Runtime only from code). */
export const readsEnvironment = (pool: ThreadPool) => (POOLS[pool.runtime]?.variables.length ?? 0) > 0;

/** "OMP_NUM_THREADS=16", "OMP_NUM_THREADS unset", or "no setting in the environment" for a runtime that reads none. */
export function poolKnob(pool: ThreadPool): string {
  if (pool.variable) return `${pool.variable}=${pool.value}`;
  return readsEnvironment(pool) ? `${POOLS[pool.runtime]!.variables.join(', ')} unset` : 'no setting in the environment';
}

/** "OMP_NUM_THREADS=16", or "OMP_NUM_THREADS unset (8 = the CPUs it may run on)". */
export function describePool(pool: ThreadPool): string {
  return pool.variable ? poolKnob(pool) : `${poolKnob(pool)} (${pool.threads} = ${DEFAULT_BASIS_TEXT[pool.defaultBasis!]})`;
}

export const DEFAULT_BASIS_TEXT: Record<DefaultBasis, string> = {
  affinity: 'the CPUs it may run on',
  'affinity-physical-cores': 'the physical cores it may run on',
  'host-physical-cores': "the host's physical cores",
  one: 'its single-threaded default',
};

/** Groups watched processes by watch name: the workers of one service. */
export function servicesOf(inventory: Inventory): ReadonlyMap<string, readonly ProcessInventory[]> {
  let services = servicesCache.get(inventory);
  if (!services) servicesCache.set(inventory, (services = groupServices(inventory)));
  return services;
}

const servicesCache = new WeakMap<Inventory, Map<string, ProcessInventory[]>>();

function groupServices(inventory: Inventory): Map<string, ProcessInventory[]> {
  const services = new Map<string, ProcessInventory[]>();
  for (const process of inventory.processes) {
    const workers = services.get(process.name);
    if (workers) workers.push(process);
    else services.set(process.name, [process]);
  }
  return services;
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

const onlineList = (online: number) => Array.from({ length: online }, (_, cpu) => cpu);

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

const onlineNodeCache = new Map<number, readonly NumaNode[]>();

/** The NUMA nodes with their CPUs, or the online CPUs as one node when the agent sent no node lists. */
export function nodesOrOnline(inventory: Inventory): readonly NumaNode[] {
  const nodes = numaNodesOf(inventory);
  if (nodes) return nodes;
  const online = inventory.host.onlineCpus;
  let one = onlineNodeCache.get(online);
  if (!one) onlineNodeCache.set(online, (one = [{ node: 0, cpus: onlineList(online) }]));
  return one;
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

/** "serve.py (pid 4242)": how a message names one process. */
export function processLabel(process: ProcessInventory): string {
  return process.name === `pid:${process.pid}` ? `pid ${process.pid}` : `${process.name} (pid ${process.pid})`;
}

export interface NumaNode {
  node: number;
  cpus: number[];
}

/** The NUMA nodes that have CPUs, from the CPU inventory's node lists; null when the agent sent none. */
export function numaNodesOf(inventory: Inventory): NumaNode[] | null {
  const cpu = inventory.cpu;
  if (isUnavailable(cpu) || !cpu.numaNodeCpus) return null;
  return cpu.numaNodeCpus.map((list, node) => ({ node, cpus: [...cpuListOf(list)] })).filter((n) => n.cpus.length > 0);
}
