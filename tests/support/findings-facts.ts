import type { CpuInventory, DiskInventory, Inventory, LoadedRuntime, ProcessInventory, RuntimeId } from '../../lib/protocol';
import type { DiskWindow, FleetFacts, HostFacts, HostWindow, RegionFacts, RegionProbeFacts, RegionRule, RuleContext } from '../../lib/findings/types';

/** Facts of a well-configured host that no rule should flag; each test changes the one thing it is about. */
export const NOW_MS = Date.UTC(2026, 11, 1, 12, 0, 0);
export const WINDOW_MS = 5 * 60_000;

export function cleanCpu(patch: Partial<CpuInventory> = {}): CpuInventory {
  return {
    vendor: 'GenuineIntel',
    model: 'Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz',
    sockets: 1,
    cores: 8,
    threads: 8,
    numaNodes: 1,
    flags: ['fpu', 'sse4_2', 'avx', 'avx2', 'fma', 'avx512f', 'avx512bw', 'avx512_vnni', 'hypervisor'],
    flagsUniform: true,
    hypervisor: 'kvm',
    hypervisorVendor: 'KVMKVMKVM',
    governor: null,
    ...patch,
  };
}

export function nvmeDisk(patch: Partial<DiskInventory> = {}): DiskInventory {
  return { device: 'nvme0n1', class: 'nvme', model: 'Samsung SSD 980 PRO', rotational: false, sizeBytes: 1e12, hwQueues: 8, scheduler: 'none', ...patch };
}

const RUNTIME_LIBRARIES: Record<RuntimeId, string> = {
  'intel-openmp': '/opt/conda/lib/libiomp5.so',
  'gnu-openmp': '/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0',
  'llvm-openmp': '/usr/lib/llvm-16/lib/libomp.so.5',
  'openblas-pthreads': '/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so',
  'openblas-openmp': '/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblaso-r0.3.21.so',
  openblas: '/opt/venv/lib/python3.11/site-packages/numpy.libs/libopenblas64_p-r0-0cf96a72.3.23.dev.so',
  mkl: '/opt/conda/lib/libmkl_intel_thread.so.2',
  onednn: '/opt/conda/lib/libdnnl.so.3',
  tensorflow: '/opt/venv/lib/python3.11/site-packages/tensorflow/libtensorflow_framework.so.2',
  pytorch: '/opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so',
  onnxruntime: '/opt/venv/lib/python3.11/site-packages/onnxruntime/capi/libonnxruntime.so.1.17.0',
  blis: '/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4',
};

/** The runtimes a process has mapped, as the agent reports them. */
export function loaded(...ids: RuntimeId[]): LoadedRuntime[] {
  return ids.map((id) => ({ id, library: RUNTIME_LIBRARIES[id] }));
}

export function watchedProcess(patch: Partial<ProcessInventory> = {}): ProcessInventory {
  return {
    name: 'serve.py',
    pid: 4242,
    comm: 'python3',
    threads: 12,
    cpusAllowedList: '0-7',
    cpusAllowedCount: 8,
    env: { OMP_NUM_THREADS: '8', KMP_BLOCKTIME: '1', KMP_AFFINITY: 'granularity=fine,compact,1,0' },
    cgroup: null,
    runtimes: loaded('pytorch', 'intel-openmp', 'mkl'),
    logWarnings: [],
    ...patch,
  };
}

export function cleanInventory(patch: Partial<Inventory> = {}): Inventory {
  return {
    hash: 'clean',
    host: { kernel: '6.1.0-18-amd64', memTotalBytes: 32e9, onlineCpus: 8 },
    cpu: cleanCpu(),
    disks: [nvmeDisk()],
    dataPaths: [{ path: '/models', device: 'nvme0n1', mountPoint: '/', fsType: 'ext4' }],
    cgroup: { path: '/', version: 2, quotaCores: null, cpusetCpus: null, effectiveCpus: 8 },
    processes: [watchedProcess()],
    ...patch,
  };
}

export function cleanWindow(patch: Partial<HostWindow> = {}): HostWindow {
  return {
    fromMs: NOW_MS - WINDOW_MS,
    toMs: NOW_MS,
    samples: 30,
    longestIntervalMs: 10_000,
    stealPct: { avg: 0.2, max: 0.8 },
    iowaitPct: { avg: 0.5, max: 2 },
    busyPct: { avg: 45, max: 70 },
    psiCpuSomePct: { avg: 2, max: 5 },
    psiIoSomePct: { avg: 0.5, max: 1 },
    perCpuStealPct: [],
    disks: [
      {
        device: 'nvme0n1',
        queueDepth: { avg: 0.4, max: 1.2 },
        readAwaitMs: { avg: 0.3, max: 0.9 },
        writeAwaitMs: { avg: 0.5, max: 1.5 },
        utilPct: { avg: 12, max: 30 },
        iops: 800,
      },
    ],
    cgroups: [],
    processes: [{ name: 'serve.py', pid: 4242, threadsMax: 12, cpuCores: 3.5 }],
    servers: [],
    droppedReports: 0,
    ...patch,
  };
}

/** One disk's window: the clean host's idle NVMe unless patched. */
export function diskWindow(patch: Partial<DiskWindow> = {}): DiskWindow {
  return {
    device: 'nvme0n1',
    queueDepth: { avg: 0.4, max: 1.2 },
    readAwaitMs: { avg: 0.3, max: 0.9 },
    writeAwaitMs: { avg: 0.5, max: 1.5 },
    utilPct: { avg: 12, max: 30 },
    iops: 800,
    ...patch,
  };
}

export function hostFacts(patch: { host?: Partial<HostFacts['host']>; inventory?: Inventory | null; window?: HostWindow | null; lastReportMs?: number | null; lastSampleMs?: number | null; lastIntervalMs?: number | null; reportEveryMs?: number | null; agentVersion?: string | null } = {}): HostFacts {
  return {
    host: { id: 1, hostname: 'osl-inf-01', region: 'oslo', labels: { service: 'ranker' }, createdAtMs: NOW_MS - 86_400_000, ...patch.host },
    nowMs: NOW_MS,
    lastReportMs: patch.lastReportMs === undefined ? NOW_MS - 5_000 : patch.lastReportMs,
    lastSampleMs: patch.lastSampleMs === undefined ? (patch.lastReportMs === undefined ? NOW_MS - 5_000 : patch.lastReportMs) : patch.lastSampleMs,
    lastIntervalMs: patch.lastIntervalMs === undefined ? 10_000 : patch.lastIntervalMs,
    reportEveryMs: patch.reportEveryMs ?? null,
    agentVersion: patch.agentVersion === undefined ? '0.1.0' : patch.agentVersion,
    inventory: patch.inventory === undefined ? { takenAtMs: NOW_MS - 3_600_000, data: cleanInventory() } : patch.inventory && { takenAtMs: NOW_MS - 3_600_000, data: patch.inventory },
    window: patch.window === undefined ? cleanWindow() : patch.window,
  };
}

export function emptyFleet(patch: Partial<FleetFacts> = {}): FleetFacts {
  return { cpuModels: new Map(), residencyPolicies: [], serverVersion: '0.1.0', ...patch };
}

/** A rule context where the listed subjects ('' for the host itself) are open findings. */
export function ruleContext(open: string[] = [], fleet: FleetFacts = emptyFleet()): RuleContext {
  return { nowMs: NOW_MS, fleet, isOpen: (subject = '') => open.includes(subject) };
}

export const PROBE_WINDOW_MS = 15 * 60_000;

/** One region's probe medians over the 15-minute probe window; each probe defaults to 90 samples from one host. */
export function regionFacts(region: string, probes: (Partial<RegionProbeFacts> & { name: string })[]): RegionFacts {
  return {
    region,
    fromMs: NOW_MS - PROBE_WINDOW_MS,
    toMs: NOW_MS,
    probes: probes.map((p) => ({ target: `tcp://${p.name}.example:443`, hosts: 1, samples: 90, medianConnectMs: null, medianResponseMs: null, ...p })),
  };
}

/** A region rule's context where the listed [region, subject] pairs are open findings. */
export function regionRuleContext(open: [string, string][] = [], fleet: FleetFacts = emptyFleet()): Parameters<RegionRule['evaluate']>[2] {
  return { nowMs: NOW_MS, fleet, isOpen: (region, subject = '') => open.some(([r, s]) => r === region && s === subject) };
}

/** A rule's default thresholds as the engine passes them. */
export function defaultsOf<D extends Record<string, { value: number }>>(defaults: D): { [K in keyof D]: number } {
  return Object.fromEntries(Object.entries(defaults).map(([k, v]) => [k, v.value])) as { [K in keyof D]: number };
}
