import { channel, hash32, unit } from './noise';

/** The demo fleet: who its hosts are and what is wrong with the few that are planted with a problem. */
export const DEMO_SEED = 'inferwatch-demo-1';
export const DEMO_REGIONS = ['oslo', 'frankfurt', 'stockholm'] as const;
export type DemoRegion = (typeof DEMO_REGIONS)[number];
/** The recommendation service's two CPU regions, and a small LLM region: vLLM on GPU hosts and one llama.cpp host. */
const HOSTS_IN_REGION: Readonly<Record<DemoRegion, number>> = { oslo: 21, frankfurt: 21, stockholm: 5 };
const HOSTNAME_PREFIX: Readonly<Record<DemoRegion, string>> = { oslo: 'oslo-inf', frankfurt: 'fra-inf', stockholm: 'sto-llm' };
export const DEMO_HOST_COUNT = DEMO_REGIONS.reduce((n, region) => n + HOSTS_IN_REGION[region], 0);
/** Every demo host carries these labels (from its region's enrollment key): the UI announces hosts labelled demo=true. */
export const DEMO_LABELS: Readonly<Record<string, string>> = { demo: 'true', service: 'nordic-recs' };
export const DEMO_INTERVAL_MS = 10_000;

export type DemoCondition =
  | 'noisy-neighbour'
  | 'sata-await'
  | 'openmp-oversubscribed'
  | 'avx2-missing'
  | 'kmp-blocktime-unset'
  | 'avx512-hidden'
  | 'flags-nonuniform'
  | 'tf-stock-build'
  | 'virtual-rotational'
  | 'hidden-neighbour'
  | 'quota-throttled'
  | 'thread-storm'
  | 'agent-stopped'
  | 'spool-dropping'
  | 'process-unreadable'
  | 'affinity-unset'
  | 'pinning-overlap'
  | 'numa-span'
  | 'kv-pressure'
  | 'kv-pressure-episodes';

export interface ConditionSpec {
  /** The findings rules this condition makes fire on its host (and nothing else does). */
  shows: readonly string[];
  summary: string;
}

export const CONDITIONS: Readonly<Record<DemoCondition, ConditionSpec>> = {
  'noisy-neighbour': { shows: ['cpu.steal-high'], summary: 'steal of 7–10 % with spikes to 30–50 % every few minutes, mostly on vCPUs 2, 3 and 6; its request p99 rises with each spike' },
  'sata-await': { shows: ['storage.disk-saturated', 'storage.data-path-slow-disk', 'storage.iowait-high'], summary: '/models on a SATA SSD (sda) with a queue of 7–20 requests, 30–55 ms read await and 11–17 % iowait' },
  'openmp-oversubscribed': { shows: ['threads.oversubscribed'], summary: 'four gunicorn workers with PyTorch and GNU OpenMP, each pinned to 2 of the 8 vCPUs but still with OMP_NUM_THREADS=8' },
  'avx2-missing': { shows: ['cpu.avx2-missing'], summary: 'a KVM guest on the default "Common KVM processor" model: no AVX, AVX2 or FMA' },
  'kmp-blocktime-unset': { shows: ['openmp.spin-wait'], summary: 'serve.py with PyTorch on Intel OpenMP and KMP_BLOCKTIME unset (200 ms of spinning after each region)' },
  'avx512-hidden': { shows: ['cpu.avx512-hidden'], summary: 'the same Xeon Gold 6338 as the rest of Frankfurt, but its hypervisor masks AVX-512' },
  'flags-nonuniform': { shows: ['cpu.flags-nonuniform'], summary: 'its vCPUs disagree on their CPU flags (a live migration between CPU generations)' },
  'tf-stock-build': { shows: ['runtime.isa-not-compiled', 'threads.tf-inter-op'], summary: "TensorFlow Serving from the stock wheel: its log says AVX2 AVX512F FMA are used only in oneDNN, and TF_NUM_INTEROP_THREADS is unset" },
  'virtual-rotational': { shows: ['storage.virtual-rotational'], summary: 'its virtio root disk vda reports itself rotational' },
  'hidden-neighbour': { shows: ['cpu.pressure-without-load'], summary: 'CPU pressure near 30 % while the host is 20–30 % busy and its hypervisor reports no steal' },
  'quota-throttled': { shows: ['threads.unset-in-quota', 'cgroup.throttling'], summary: 'ONNX Runtime in a container with a 2-CPU quota on 16 vCPUs: 16 intra-op threads, throttled in 25–40 % of its periods' },
  'thread-storm': { shows: ['threads.count-high'], summary: 'a gunicorn worker with 150 threads on 4 vCPUs' },
  'agent-stopped': { shows: ['agent.stopped-reporting'], summary: 'its agent stopped 20 minutes before the demo first started' },
  'spool-dropping': { shows: ['agent.spool-dropped'], summary: "its agent's 1 MB spool overflows and drops a report every 2.5 minutes" },
  'process-unreadable': { shows: ['agent.process-unreadable'], summary: "the agent may not read triton's environ and maps (another user's process)" },
  'affinity-unset': { shows: ['openmp.affinity-unset'], summary: 'serve.py on Intel OpenMP with neither KMP_AFFINITY nor OMP_PROC_BIND, alone on its CPUs' },
  'pinning-overlap': { shows: ['pinning.overlap'], summary: 'triton and serve.py side by side, each sized to and free to run on all 16 vCPUs' },
  'numa-span': { shows: ['pinning.numa-span'], summary: 'a 32-vCPU guest with two NUMA nodes (0–15, 16–31) whose serve.py may run on all of them' },
  'kv-pressure': {
    shows: ['server.kv-preemption'],
    summary: 'vLLM serving Llama 3.1 8B with too little KV cache: 88–93 % in use and 8–15 preemptions/min, with bursts to 100 % and 60–90/min every few minutes; its request p99 rises with each burst',
  },
  'kv-pressure-episodes': {
    shows: ['server.kv-preemption'],
    summary: 'vLLM whose KV cache is sized for its usual load: 84–89 % in use and 5–8 preemptions/min, and four times a day, for 30–45 minutes, long prompts fill it to 98 % and it preempts 25–60 requests a minute; its TTFT and inter-token p99 rise 3–5× with them, which latency explained names as KV pressure',
  },
};

/** Region-wide findings: Frankfurt is 25 ms further from Norwegian users than Oslo. */
export const REGION_SHOWS: Readonly<Record<DemoRegion, readonly string[]>> = { oslo: [], frankfurt: ['region.rtt-gap'], stockholm: [] };

const PLANTED: Readonly<Record<string, DemoCondition>> = {
  'oslo-inf-04': 'noisy-neighbour',
  'oslo-inf-07': 'sata-await',
  'oslo-inf-09': 'kmp-blocktime-unset',
  'oslo-inf-12': 'flags-nonuniform',
  'oslo-inf-14': 'virtual-rotational',
  'oslo-inf-16': 'quota-throttled',
  'oslo-inf-18': 'agent-stopped',
  'oslo-inf-20': 'process-unreadable',
  'fra-inf-03': 'openmp-oversubscribed',
  'fra-inf-05': 'avx2-missing',
  'fra-inf-08': 'avx512-hidden',
  'fra-inf-10': 'tf-stock-build',
  'fra-inf-13': 'hidden-neighbour',
  'fra-inf-15': 'thread-storm',
  'fra-inf-17': 'spool-dropping',
  'fra-inf-19': 'affinity-unset',
  'fra-inf-06': 'pinning-overlap',
  'oslo-inf-02': 'numa-span',
  'fra-inf-11': 'kv-pressure',
  'sto-llm-03': 'kv-pressure-episodes',
};

export type ServiceKind = 'triton' | 'serve.py' | 'gunicorn' | 'tensorflow_model_server' | 'vllm' | 'llama-server';
export type CpuKind = 'epyc-7543p' | 'xeon-6338' | 'kvm64';

export interface DemoHost {
  hostname: string;
  machineId: string;
  region: DemoRegion;
  seed: string;
  condition: DemoCondition | null;
  service: ServiceKind;
  cpuKind: CpuKind;
  vcpus: number;
  memBytes: number;
  /** Offset of its reports within the interval, so 42 hosts do not all report in the same millisecond. */
  phaseMs: number;
  /** Requests per second at the daily peak. */
  peakRps: number;
  /** Median TCP connect time to each probe target. */
  rttMs: { nixUsers: number; models: number };
  /** When this fleet first started (kept in its state): the silent host and the spool counter count from it. */
  epochMs: number;
}

const CLEAN_SERVICES: readonly ServiceKind[] = ['triton', 'serve.py', 'gunicorn'];

/** The LLM region's hosts: vLLM on all but its last, which runs llama.cpp's llama-server on CPU. */
const llmServiceOf = (index: number): ServiceKind => (index === HOSTS_IN_REGION.stockholm ? 'llama-server' : 'vllm');

function serviceFor(region: DemoRegion, condition: DemoCondition | null, index: number): ServiceKind {
  if (region === 'stockholm') return llmServiceOf(index);
  switch (condition) {
    case 'openmp-oversubscribed':
    case 'thread-storm':
      return 'gunicorn';
    case 'kmp-blocktime-unset':
    case 'affinity-unset':
    case 'kv-pressure':
    case 'quota-throttled':
    case 'numa-span':
      return 'serve.py';
    case 'tf-stock-build':
      return 'tensorflow_model_server';
    case 'process-unreadable':
    case 'pinning-overlap':
      return 'triton';
    default:
      return CLEAN_SERVICES[index % CLEAN_SERVICES.length]!;
  }
}

function vcpusFor(region: DemoRegion, condition: DemoCondition | null, index: number): number {
  if (region === 'stockholm') return llmServiceOf(index) === 'llama-server' ? 32 : 16;
  if (condition === 'thread-storm') return 4;
  if (condition === 'numa-span') return 32;
  if (condition === 'quota-throttled' || condition === 'pinning-overlap') return 16;
  if (condition === 'openmp-oversubscribed' || condition === 'kmp-blocktime-unset') return 8;
  return index % 3 === 2 ? 16 : 8;
}

const hostnameOf = (region: DemoRegion, index: number) => `${HOSTNAME_PREFIX[region]}-${String(index).padStart(2, '0')}`;

/** Median TCP connect times: NIX (where Norwegian users are) is a few ms from Oslo, ~10 from Stockholm, ~30 from Frankfurt. */
function rttOf(region: DemoRegion, u: (what: string) => number): DemoHost['rttMs'] {
  switch (region) {
    case 'oslo':
      return { nixUsers: 4.6 + 2.6 * u('rtt-nix'), models: 14 + 3 * u('rtt-models') };
    case 'frankfurt':
      return { nixUsers: 27 + 5.5 * u('rtt-nix'), models: 6 + 2 * u('rtt-models') };
    case 'stockholm':
      return { nixUsers: 9.2 + 1.8 * u('rtt-nix'), models: 12 + 3 * u('rtt-models') };
  }
}

/** The fleet for a seed: the same hosts, numbers and problems every time. */
export function demoFleet(options: { seed?: string; epochMs: number }): DemoHost[] {
  const seed = options.seed ?? DEMO_SEED;
  const hosts: DemoHost[] = [];
  for (const region of DEMO_REGIONS) {
    for (let index = 1; index <= HOSTS_IN_REGION[region]; index++) {
      const hostname = hostnameOf(region, index);
      const condition = PLANTED[hostname] ?? null;
      const vcpus = vcpusFor(region, condition, index);
      const service = serviceFor(region, condition, index);
      const u = (what: string) => unit(channel(seed, hostname, what));
      hosts.push({
        hostname,
        machineId: [0, 1, 2, 3].map((i) => hash32(`${seed}|${hostname}|machine-id|${i}`).toString(16).padStart(8, '0')).join(''),
        region,
        seed,
        condition,
        service,
        cpuKind: condition === 'avx2-missing' ? 'kvm64' : region === 'frankfurt' ? 'xeon-6338' : 'epyc-7543p',
        vcpus,
        memBytes: vcpus * 4 * 1024 ** 3,
        phaseMs: Math.floor(u('phase') * DEMO_INTERVAL_MS),
        // An LLM request is a whole generation: a replica serves a few a second, not tens.
        peakRps: service === 'vllm' ? Math.round(5 + 4 * u('rps')) : service === 'llama-server' ? 2 : Math.round(15 + 35 * u('rps')),
        rttMs: rttOf(region, u),
        epochMs: options.epochMs,
      });
    }
  }
  return hosts;
}

/** The silent host's agent stopped this long before the fleet's first start. */
export const STOPPED_BEFORE_EPOCH_MS = 20 * 60_000;

/** The newest time a host reports at; Infinity for all but the one whose agent stopped. */
export function reportsUntilMs(host: DemoHost): number {
  return host.condition === 'agent-stopped' ? host.epochMs - STOPPED_BEFORE_EPOCH_MS : Infinity;
}
