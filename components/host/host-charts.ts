import type { SeriesMetric } from '@/lib/protocol/read-api/series';
import type { HostColourLevels } from '@/lib/protocol/read-api/fleet';
import type { ChartConfig } from '../charts/time-chart-config';
import { formatMs, formatPct, formatQueue } from '../format';
import type { ShapeOptions } from './chart-data';
import { formatBytes } from './inventory-view';

/** The host page's charts: each one metric family, drawn by one of the chart kinds. */
export interface HostChartDef {
  id: string;
  title: string;
  /** What it shows and why it matters, one sentence. */
  description: string;
  kind: ChartConfig['kind'];
  metrics: readonly { metric: SeriesMetric; label: string }[];
  format: (value: number) => string;
  yMax?: number;
  yMinMax?: number;
  shape?: ShapeOptions;
  /** The host's colour levels drawn as lines, and the findings rule they come from (only where it judges what is drawn). */
  levels?: { of: keyof HostColourLevels; ruleId: string; where?: string };
  /**
   * Why the chart is empty when the host did report in the range, without what it draws (not supported or not set
   * up there), and what to do; a range without any report says so instead (chart-empty.ts).
   */
  empty: string;
}

const pct = (v: number) => formatPct(v, v >= 10 ? 0 : 1);
const iops = (v: number) => `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} IO/s`;
const vcpu = (key: string) => (key === 'worst' ? 'most-stolen vCPU' : `vCPU ${key}`);

export const HOST_CHARTS = [
  {
    id: 'cpu',
    title: 'CPU time',
    description: 'User, system, iowait and steal stacked, as % of all vCPUs; steal is time a neighbour on the hypervisor took.',
    kind: 'stacked',
    metrics: [
      { metric: 'cpu_user', label: 'user' },
      { metric: 'cpu_system', label: 'system' },
      { metric: 'cpu_iowait', label: 'iowait' },
      { metric: 'cpu_steal', label: 'steal' },
    ],
    format: pct,
    yMax: 100,
    empty: 'Its reports in this range carry no CPU times: the agent could not read /proc/stat (its log says why).',
  },
  {
    id: 'steal-per-cpu',
    title: 'Steal per vCPU',
    description: 'Steal on each vCPU (the most-stolen one once the range is rolled up): one starved vCPU stalls a whole batch.',
    kind: 'time-series',
    metrics: [{ metric: 'cpu_steal_per_cpu', label: 'steal' }],
    format: pct,
    yMinMax: 5,
    shape: { keyLabel: vcpu, maxSeries: 8 },
    empty: 'Its reports in this range carry no per-vCPU times: the agent could not read /proc/stat (its log says why).',
  },
  {
    id: 'pressure',
    title: 'Pressure (PSI)',
    description: 'Share of time some task waited for CPU, I/O or memory (10 s average), straight from the kernel.',
    kind: 'time-series',
    metrics: [
      { metric: 'psi_cpu', label: 'CPU' },
      { metric: 'psi_io', label: 'I/O' },
      { metric: 'psi_memory', label: 'memory' },
    ],
    format: pct,
    yMinMax: 5,
    empty:
      'Its reports in this range carry no pressure stall information: the kernel has no PSI (it needs 4.20 or later built with CONFIG_PSI, and psi=1 on its command line where that is off by default), or the agent may not read /proc/pressure.',
  },
  {
    id: 'disk-iops',
    title: 'Disk IOPS',
    description: 'Reads and writes per second on each disk.',
    kind: 'time-series',
    metrics: [
      { metric: 'disk_read_iops', label: 'read' },
      { metric: 'disk_write_iops', label: 'write' },
    ],
    format: iops,
    yMinMax: 10,
    shape: { maxSeries: 12 },
    empty: 'Its reports in this range carry no disks: the agent found no block devices in /proc/diskstats, or could not read it.',
  },
  {
    id: 'disk-throughput',
    title: 'Disk throughput',
    description: 'Bytes read and written per second on each disk: a model load or a checkpoint shows here first.',
    kind: 'time-series',
    metrics: [
      { metric: 'disk_read_bytes', label: 'read' },
      { metric: 'disk_write_bytes', label: 'write' },
    ],
    format: (v) => `${formatBytes(v)}/s`,
    yMinMax: 1e6,
    shape: { maxSeries: 12 },
    empty: 'Its reports in this range carry no disks: the agent found no block devices in /proc/diskstats, or could not read it.',
  },
  {
    id: 'disk-await',
    title: 'Disk await',
    description: 'Average time a read or write took on each disk, queueing included: model loads and swap wait this long.',
    kind: 'time-series',
    metrics: [
      { metric: 'disk_read_await', label: 'read' },
      { metric: 'disk_write_await', label: 'write' },
    ],
    format: formatMs,
    yMinMax: 2,
    shape: { maxSeries: 12 },
    empty: 'Its reports in this range carry no disks: the agent found no block devices in /proc/diskstats, or could not read it.',
  },
  {
    id: 'disk-queue',
    title: 'Disk queue size',
    description: 'Average requests in flight per disk; past a few, requests wait behind each other.',
    kind: 'time-series',
    metrics: [{ metric: 'disk_queue_depth', label: 'queue' }],
    format: formatQueue,
    yMinMax: 1,
    shape: { maxSeries: 12 },
    levels: { of: 'diskQueueDepth', ruleId: 'storage.disk-saturated', where: 'HDD, SATA/SAS SSD and virtual disks (not NVMe)' },
    empty: 'Its reports in this range carry no disks: the agent found no block devices in /proc/diskstats, or could not read it.',
  },
  {
    id: 'probe-rtt',
    title: 'Probe round trips',
    description: 'Connect and response times the host measured to each probe target.',
    kind: 'time-series',
    metrics: [
      { metric: 'probe_connect', label: 'connect' },
      { metric: 'probe_response', label: 'response' },
    ],
    format: formatMs,
    yMinMax: 5,
    shape: { maxSeries: 12 },
    empty: 'No probes in this range. Give the agent --probe NAME=tcp://HOST:PORT (or an http(s) URL) to time a target.',
  },
  {
    id: 'cgroup-throttling',
    title: 'cgroup CPU throttling',
    description: 'Share of scheduling periods each cgroup spent throttled by its CPU quota: a quota too small for its threads.',
    kind: 'time-series',
    metrics: [{ metric: 'cgroup_throttled_pct', label: 'throttled' }],
    format: pct,
    yMinMax: 5,
    shape: { maxSeries: 12 },
    empty: 'No cgroup throttling measured: no watched process runs in a CPU-limited cgroup (--watch-process NAME).',
  },
  {
    id: 'server-latency',
    title: 'Model server: mean latency and queue time',
    description:
      'Means over each interval from the server’s own sums and counts (Triton and TorchServe counters, vLLM and TGI histograms): means, not percentiles. Queue time rising with latency is saturation.',
    kind: 'time-series',
    metrics: [
      { metric: 'server_latency_mean', label: 'mean latency' },
      { metric: 'server_queue_mean', label: 'mean queue time' },
    ],
    format: formatMs,
    yMinMax: 1,
    shape: { maxSeries: 8 },
    empty: 'No model server read in this range. Give the agent --scrape NAME=URL (vLLM, SGLang, Dynamo, TGI, Triton, TorchServe, BentoML, Ray Serve).',
  },
  {
    id: 'server-queue',
    title: 'Model server: waiting, running and batch',
    description: 'Requests waiting for a slot, requests running and the batch size the server reports: a queue that grows while the host is idle needs replicas.',
    kind: 'time-series',
    metrics: [
      { metric: 'server_waiting', label: 'waiting' },
      { metric: 'server_running', label: 'running' },
      { metric: 'server_batch_size', label: 'batch' },
    ],
    format: formatQueue,
    yMinMax: 1,
    shape: { maxSeries: 8 },
    empty: 'No queue or batch gauges in this range: vLLM, TGI and Triton publish them (--scrape NAME=URL).',
  },
  {
    id: 'server-kv-cache',
    title: 'LLM engine: KV cache in use',
    description:
      'The share of the engine’s KV cache its running requests hold (vLLM kv_cache_usage_perc, SGLang token_usage, TensorRT-LLM kv_cache_utilization): near 100 % it must evict requests to admit more.',
    kind: 'time-series',
    metrics: [{ metric: 'server_kv_cache', label: 'KV cache' }],
    format: pct,
    yMax: 100,
    shape: { maxSeries: 8 },
    empty: 'No KV cache gauge in this range: vLLM, SGLang and trtllm-serve publish one (--scrape NAME=URL).',
  },
  {
    id: 'server-preemptions',
    title: 'LLM engine: preemptions',
    description:
      'Requests per minute the engine evicted from its KV cache to compute again later (vLLM preemptions, SGLang retractions): each one pays its prefill twice, at p99 first.',
    kind: 'time-series',
    metrics: [{ metric: 'server_preemptions', label: 'preemptions' }],
    format: (v: number) => `${v >= 10 ? v.toFixed(0) : v.toFixed(1)}/min`,
    yMinMax: 1,
    shape: { maxSeries: 8 },
    empty: 'No preemption counter in this range: vLLM and SGLang publish one (--scrape NAME=URL).',
  },
  {
    id: 'server-token-mean',
    title: 'LLM engine: mean time per output token',
    description:
      'Generation time over generated tokens in each interval (llama.cpp’s counters, which give nothing per request): a mean inter-token time, not a percentile.',
    kind: 'time-series',
    metrics: [{ metric: 'server_token_mean', label: 'per output token' }],
    format: formatMs,
    yMinMax: 1,
    shape: { maxSeries: 8 },
    empty: 'No per-token mean in this range: llama.cpp publishes the counters it comes from (llama-server --metrics; --scrape NAME=URL).',
  },
] as const satisfies readonly HostChartDef[];

export const LATENCY_CHART = {
  description: 'p50, p95 and p99 per bucket from the host’s merged request histograms (never averaged percentiles).',
  format: formatMs,
  yMinMax: 1,
  empty: 'No requests timed in this range.',
} as const;

/** Latency series charted when the URL names none: the busiest. */
export const DEFAULT_LATENCY_CHARTS = 3;
