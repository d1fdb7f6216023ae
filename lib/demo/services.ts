import type { LoadedRuntime, ProcessInventory, RuntimeId } from '../protocol';
import type { DemoHost, ServiceKind } from './fleet';
import { hash32 } from './noise';

/** The inference servers the demo hosts run, as the agent's process inventory describes them. */
const LIBRARIES: Record<RuntimeId, string> = {
  'intel-openmp': '/opt/conda/lib/libiomp5.so',
  'gnu-openmp': '/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0',
  'llvm-openmp': '/usr/lib/llvm-16/lib/libomp.so.5',
  'openblas-pthreads': '/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so',
  'openblas-openmp': '/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblaso-r0.3.21.so',
  openblas: '/opt/venv/lib/python3.11/site-packages/numpy.libs/libopenblas64_p-r0-0cf96a72.3.23.dev.so',
  mkl: '/opt/conda/lib/libmkl_intel_thread.so.2',
  onednn: '/opt/conda/lib/libdnnl.so.3',
  tensorflow: '/usr/local/lib/python3.11/dist-packages/tensorflow/libtensorflow_framework.so.2',
  pytorch: '/opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so',
  onnxruntime: '/opt/venv/lib/python3.11/site-packages/onnxruntime/capi/libonnxruntime.so.1.17.3',
  blis: '/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4',
};

const loaded = (ids: readonly RuntimeId[]): LoadedRuntime[] => ids.map((id) => ({ id, library: LIBRARIES[id] }));

export const TF_WARNING_LINE =
  'I tensorflow/core/platform/cpu_feature_guard.cc:182] This TensorFlow binary is optimized to use available CPU ' +
  'instructions in performance-critical operations. To enable the following instructions: AVX2 AVX512F FMA, in ' +
  'other operations, rebuild TensorFlow with the appropriate compiler flags.';

export interface WatchedProcess {
  inventory: ProcessInventory;
  rssBytes: number;
}

/** One inference service on a host: its workers (one watched name), its cgroup and the model it serves. */
export interface DemoService {
  name: ServiceKind;
  /** The model its request latency is tagged with, and that latency's median at light load. */
  model: string;
  medianMs: number;
  cgroup: { path: string; quotaCores: number | null };
  processes: WatchedProcess[];
}

export const QUOTA_CORES = 2;

const SERVICE_CGROUPS: Record<ServiceKind, string> = {
  triton: '/system.slice/triton.service',
  'serve.py': '/system.slice/model-server.service',
  gunicorn: '/system.slice/gunicorn.service',
  tensorflow_model_server: '/system.slice/tensorflow-serving.service',
  vllm: '/system.slice/vllm.service',
  'llama-server': '/system.slice/llama-server.service',
};

const hex = (host: DemoHost, what: string, words: number) =>
  Array.from({ length: words }, (_, i) => hash32(`${host.seed}|${host.hostname}|${what}|${i}`).toString(16).padStart(8, '0')).join('');

function cgroupOf(host: DemoHost, name: ServiceKind): DemoService['cgroup'] {
  if (host.condition === 'quota-throttled') return { path: `/system.slice/docker-${hex(host, 'container', 8)}.scope`, quotaCores: QUOTA_CORES };
  return { path: SERVICE_CGROUPS[name], quotaCores: null };
}

type Env = Record<string, string>;

const KMP_AFFINITY = 'granularity=fine,compact,1,0';

/** Each worker's thread settings: what a careful operator sets, except where the host is planted with a mistake. */
function envFor(host: DemoHost, name: ServiceKind, cpusPerWorker: number, workers: number): Env {
  const n = String(cpusPerWorker);
  switch (host.condition) {
    case 'kmp-blocktime-unset':
      return { OMP_NUM_THREADS: n, KMP_AFFINITY };
    case 'affinity-unset':
      return { OMP_NUM_THREADS: n, KMP_BLOCKTIME: '1' };
    case 'openmp-oversubscribed':
      return { OMP_NUM_THREADS: '8', OMP_PROC_BIND: 'close', OMP_PLACES: 'cores', WEB_CONCURRENCY: String(workers) };
    case 'quota-throttled':
      return {};
    case 'tf-stock-build':
      return { TF_CPP_MIN_LOG_LEVEL: '0' };
  }
  switch (name) {
    case 'triton':
    case 'vllm':
    case 'llama-server':
      return { OMP_NUM_THREADS: n, OMP_PROC_BIND: 'close', OMP_PLACES: 'cores' };
    case 'serve.py':
      return { OMP_NUM_THREADS: n, KMP_BLOCKTIME: '1', KMP_AFFINITY };
    case 'gunicorn':
      return { OPENBLAS_NUM_THREADS: n, WEB_CONCURRENCY: String(workers) };
    case 'tensorflow_model_server':
      return { TF_NUM_INTEROP_THREADS: '1', TF_NUM_INTRAOP_THREADS: n };
  }
}

interface Shape {
  comm: string;
  model: string;
  medianMs: number;
  workers: number;
  /** Workers pinned to equal shares of the CPUs (taskset / --cpuset-cpus), or all on every CPU. */
  pinned: boolean;
  threads: (cpus: number) => number;
  runtimes: RuntimeId[];
  rssBytes: number;
}

const GiB = 1024 ** 3;

const SHAPES: Record<ServiceKind, Shape> = {
  triton: { comm: 'tritonserver', model: 'ranker-v7', medianMs: 18, workers: 1, pinned: false, threads: (n) => 2 * n + 10, runtimes: ['pytorch', 'gnu-openmp', 'onnxruntime'], rssBytes: 3.5 * GiB },
  'serve.py': { comm: 'python3', model: 'embedder-e5', medianMs: 35, workers: 1, pinned: false, threads: (n) => n + 10, runtimes: ['pytorch', 'intel-openmp', 'mkl'], rssBytes: 2.8 * GiB },
  gunicorn: { comm: 'gunicorn', model: 'churn-gbm', medianMs: 9, workers: 2, pinned: true, threads: (n) => n + 3, runtimes: ['openblas-pthreads'], rssBytes: 0.7 * GiB },
  tensorflow_model_server: { comm: 'tensorflow_mode', model: 'vision-resnet50', medianMs: 60, workers: 1, pinned: false, threads: (n) => n + 14, runtimes: ['tensorflow'], rssBytes: 4.1 * GiB },
  // vLLM's OpenAI server on a GPU: its median is the time to first token.
  vllm: { comm: 'vllm', model: 'llama-3.1-8b-instruct', medianMs: 160, workers: 1, pinned: false, threads: (n) => n + 40, runtimes: ['pytorch', 'gnu-openmp'], rssBytes: 9.5 * GiB },
  'llama-server': { comm: 'llama-server', model: 'qwen2.5-7b-instruct-q4_k_m', medianMs: 900, workers: 1, pinned: false, threads: (n) => n + 6, runtimes: ['gnu-openmp'], rssBytes: 5.2 * GiB },
};

function shapeOf(host: DemoHost, name: ServiceKind): Shape {
  const base = SHAPES[name];
  switch (host.condition) {
    case 'openmp-oversubscribed':
      return { ...base, model: 'ranker-v7', medianMs: 22, workers: 4, threads: () => 14, runtimes: ['pytorch', 'gnu-openmp'], rssBytes: 1.6 * GiB };
    case 'thread-storm':
      return { ...base, workers: 1, pinned: false, threads: () => 150, rssBytes: 0.9 * GiB };
    case 'quota-throttled':
      return { ...base, threads: () => 24, runtimes: ['onnxruntime'], rssBytes: 2.2 * GiB };
    case 'kv-pressure':
      // vLLM behind serve.py: request latency is a whole generation, hundreds of milliseconds.
      return { ...base, model: 'llama-3.1-8b-instruct', medianMs: 420, rssBytes: 6.5 * GiB };
    default:
      return base;
  }
}

/** "0-3" for worker 0 of 2 on 8 CPUs: each pinned worker gets an equal contiguous share. */
function cpusOf(host: DemoHost, shape: Shape, worker: number): { list: string; count: number } {
  if (!shape.pinned) return { list: `0-${host.vcpus - 1}`, count: host.vcpus };
  const share = Math.max(1, Math.floor(host.vcpus / shape.workers));
  const first = worker * share;
  return { list: share === 1 ? String(first) : `${first}-${first + share - 1}`, count: share };
}

function serviceOn(host: DemoHost, name: ServiceKind, index: number): DemoService {
  const shape = shapeOf(host, name);
  const cgroup = cgroupOf(host, name);
  const basePid = 1000 + (hash32(`${host.seed}|${host.hostname}|pid|${index}`) % 60_000);
  const unreadable = host.condition === 'process-unreadable';
  const processes = Array.from({ length: shape.workers }, (_, worker): WatchedProcess => {
    const cpus = cpusOf(host, shape, worker);
    return {
      rssBytes: Math.round(shape.rssBytes),
      inventory: {
        name,
        pid: basePid + worker * 7,
        comm: shape.comm,
        threads: shape.threads(cpus.count),
        cpusAllowedList: cpus.list,
        cpusAllowedCount: cpus.count,
        env: unreadable ? {} : envFor(host, name, cpus.count, shape.workers),
        ...(unreadable ? { envUnreadable: 'environ: permission denied' } : {}),
        cgroup: { path: cgroup.path, version: 2, quotaCores: cgroup.quotaCores, cpusetCpus: null, effectiveCpus: cgroup.quotaCores ?? host.vcpus },
        ...(unreadable ? { runtimesUnreadable: 'maps: permission denied' } : { runtimes: loaded(shape.runtimes) }),
        logWarnings: host.condition === 'tf-stock-build'
          ? [{ id: 'tf-cpu-instructions', line: `${new Date(host.epochMs).toISOString().slice(0, 23).replace('T', ' ')}: ${TF_WARNING_LINE}` }]
          : [],
      },
    };
  });
  return { name, model: shape.model, medianMs: shape.medianMs, cgroup, processes };
}

/** The services on a host: one, or two side by side on the same CPUs where that is the planted problem. */
export function servicesOn(host: DemoHost): DemoService[] {
  const names: ServiceKind[] = host.condition === 'pinning-overlap' ? ['triton', 'serve.py'] : [host.service];
  return names.map((name, index) => serviceOn(host, name, index));
}
