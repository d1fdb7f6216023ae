import { isUnavailable, type Inventory, type ProcessInventory, type RuntimeId } from '../../protocol';

/**
 * How many threads each runtime a watched process loads starts in its intra-op pool, from the inventory alone. The
 * sizing follows each runtime's own source and documentation (see docs/findings/threads.oversubscribed.md).
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

/** A runtime the process loads whose pool size cannot be known from what the agent sees. */
export interface UnsizedPool {
  runtime: RuntimeId;
  /** Why, as a message reads it: "threading unknown: 1 thread as a pthreads build, 8 as an OpenMP build". */
  reason: string;
}

/** What can be known of a process's intra-op pools: the ones that can be sized, and the ones that cannot. */
export interface PoolReading {
  sized: ThreadPool[];
  unsized: UnsizedPool[];
}

const threadsText = (n: number) => `${n} ${n === 1 ? 'thread' : 'threads'}`;

/** OpenBLAS of unknown threading: the pthreads build reads OPENBLAS_NUM_THREADS first, the OpenMP build ignores it. */
function unknownOpenblasPool(env: Readonly<Record<string, string>>, process: ProcessInventory, host: HostCpus, loaded: ReadonlySet<RuntimeId>): ThreadPool | UnsizedPool {
  const asPthreads = poolFrom('openblas', POOLS['openblas-pthreads']!, env, process, host, loaded);
  const asOpenmp = poolFrom('openblas', OPENMP_POOL, env, process, host, loaded);
  if (asPthreads && asOpenmp && asPthreads.threads === asOpenmp.threads) return asPthreads;
  const as = (pool: ThreadPool | null) => (pool ? threadsText(pool.threads) : 'unknown');
  return { runtime: 'openblas', reason: `threading unknown: ${as(asPthreads)} as a pthreads build, ${as(asOpenmp)} as an OpenMP build` };
}

const unsizedReason = (basis: DefaultBasis) =>
  basis === 'host-physical-cores' ? "its default is the host's physical cores, which the CPU inventory does not give" : 'its default cannot be counted';

/**
 * The intra-op pool of each threaded runtime the process loads, sized as that runtime sizes it from the environment;
 * a pool whose size depends on what the agent cannot see (OpenBLAS of unknown threading whose two builds would read
 * the variables differently, a default counted in physical cores the inventory lacks) is listed as unsized, and the
 * others are still judged. null only when nothing can be known: runtimes not reported (an older agent, maps
 * unreadable) or the environment unreadable.
 */
export function intraOpPools(process: ProcessInventory, inventory: Inventory): PoolReading | null {
  const cached = poolsCache.get(process);
  if (cached?.inventory === inventory) return cached.reading;
  const reading = readPools(process, inventory);
  poolsCache.set(process, { inventory, reading });
  return reading;
}

// Inventory snapshots are immutable and kept across cycles (InventoryCache), and every rule asks about the same
// processes: what is derived from one is computed once. Keyed by the process, checked against its inventory.
const poolsCache = new WeakMap<ProcessInventory, { inventory: Inventory; reading: PoolReading | null }>();

function readPools(process: ProcessInventory, inventory: Inventory): PoolReading | null {
  const loaded = runtimesOf(process);
  const env = envOf(process);
  if (!loaded || !env) return null;
  const host = hostCpusOf(inventory);
  const reading: PoolReading = { sized: [], unsized: [] };
  for (const runtime of POOL_ORDER) {
    if (!loaded.has(runtime)) continue;
    const spec = POOLS[runtime]!;
    const pool = runtime === 'openblas' ? unknownOpenblasPool(env, process, host, loaded) : poolFrom(runtime, spec, env, process, host, loaded);
    if (pool === null) reading.unsized.push({ runtime, reason: unsizedReason(spec.unsetDefault) });
    else if ('threads' in pool) reading.sized.push(pool);
    else reading.unsized.push(pool);
  }
  return reading;
}

/** The sized pools of a reading, or null when nothing could be known; for rules that need sizes only. */
export const sizedPools = (process: ProcessInventory, inventory: Inventory): ThreadPool[] | null => intraOpPools(process, inventory)?.sized ?? null;

/** "OpenBLAS (threading unknown: …)": the pools a message must say it could not count. */
export function describeUnsized(unsized: readonly UnsizedPool[]): string {
  return unsized.map((pool) => `${RUNTIME_NAMES[pool.runtime]} (${pool.reason})`).join('; ');
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
