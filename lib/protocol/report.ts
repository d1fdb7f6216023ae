import { z } from 'zod';
import { processContainerSchema } from './container';
import { isAllowedEnvVar } from './env-allow-list';
import {
  countSchema,
  measurementSchema,
  nameSchema,
  nonNegativeSchema,
  orUnavailable,
  pctSchema,
  refuseNul,
} from './primitives';

export const PROTOCOL_VERSION = 1;

const MAX_INTERVAL_MS = 3_600_000;

export const cpuBreakdownSchema = z.object({
  userPct: pctSchema,
  nicePct: pctSchema,
  systemPct: pctSchema,
  iowaitPct: pctSchema,
  irqPct: pctSchema,
  softirqPct: pctSchema,
  stealPct: pctSchema,
  idlePct: pctSchema,
});
export type CpuBreakdown = z.infer<typeof cpuBreakdownSchema>;

export const perCpuSchema = cpuBreakdownSchema.extend({ cpu: countSchema });
export type PerCpu = z.infer<typeof perCpuSchema>;

export const cpuSampleSchema = z.object({
  total: cpuBreakdownSchema,
  perCpu: z.array(perCpuSchema).max(4096),
  onlineCpus: countSchema,
  contextSwitchesPerS: nonNegativeSchema,
  load1: nonNegativeSchema,
  load5: nonNegativeSchema,
  load15: nonNegativeSchema,
  procsRunning: countSchema,
  procsBlocked: countSchema,
});
export type CpuSample = z.infer<typeof cpuSampleSchema>;

/** One PSI line: averages as the kernel reports them, plus the stall time measured over this interval. */
export const stallSchema = z.object({
  avg10: pctSchema,
  avg60: pctSchema,
  avg300: pctSchema,
  stallPct: pctSchema,
});
export const pressureResourceSchema = z.object({
  some: stallSchema,
  full: stallSchema.nullable(),
});
export const pressureSampleSchema = z.object({
  cpu: orUnavailable(pressureResourceSchema),
  io: orUnavailable(pressureResourceSchema),
  memory: orUnavailable(pressureResourceSchema),
});
export type PressureSample = z.infer<typeof pressureSampleSchema>;

export const diskSampleSchema = z.object({
  device: nameSchema,
  readIops: nonNegativeSchema,
  writeIops: nonNegativeSchema,
  readBytesPerS: nonNegativeSchema,
  writeBytesPerS: nonNegativeSchema,
  readAwaitMs: nonNegativeSchema,
  writeAwaitMs: nonNegativeSchema,
  /** Average queue size over the interval, computed as iostat's aqu-sz. */
  queueDepth: nonNegativeSchema,
  inFlight: countSchema,
  utilPct: pctSchema,
});
export type DiskSample = z.infer<typeof diskSampleSchema>;

export const cgroupSampleSchema = z.object({
  /** cgroup path relative to the hierarchy root ("/" for the host's own group). */
  path: z.string().min(1).max(1000),
  version: z.union([z.literal(1), z.literal(2)]),
  /** CPU limit in cores from cpu.max / cfs_quota; null when unlimited. */
  quotaCores: nonNegativeSchema.nullable(),
  cpusetCpus: z.string().max(1000).nullable(),
  /** The CPUs the group may really use: min(quota, cpuset size, online CPUs). */
  effectiveCpus: nonNegativeSchema,
  usageCores: nonNegativeSchema,
  throttledPeriodsPerS: nonNegativeSchema,
  /** Share of enforcement periods in which the group was throttled. */
  throttledPct: pctSchema,
  throttledMsPerS: nonNegativeSchema,
});
export type CgroupSample = z.infer<typeof cgroupSampleSchema>;

export const processSampleSchema = z.object({
  name: nameSchema,
  pid: z.number().int().positive(),
  threads: countSchema,
  /** CPU used by the process over the interval, in cores (1.0 = one core busy). */
  cpuCores: nonNegativeSchema,
  rssBytes: nonNegativeSchema,
  voluntaryCtxSwitchesPerS: nonNegativeSchema,
  nonvoluntaryCtxSwitchesPerS: nonNegativeSchema,
});
export type ProcessSample = z.infer<typeof processSampleSchema>;

const MAX_SKETCH_BUCKETS = 4096;
// Raw histograms store bucket counts as int4 (half the bytes of int8): one interval of one host never nears 2³¹.
const MAX_BUCKET_COUNT = 2_147_483_647;

// One pass over the bucket arrays: a zod schema per element was the dearest part of validating a report.
const bucketArraySchema = z.custom<number[]>(
  (value) => Array.isArray(value) && value.length <= MAX_SKETCH_BUCKETS,
  `expected an array of at most ${MAX_SKETCH_BUCKETS} numbers`,
).meta({ type: 'array', items: { type: 'integer' }, maxItems: MAX_SKETCH_BUCKETS });

function bucketIssue(keys: readonly unknown[], counts: readonly unknown[]): { path: (string | number)[]; message: string } | null {
  if (keys.length !== counts.length) return { path: ['counts'], message: 'keys and counts must have the same length' };
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (!Number.isInteger(key) || (key as number) < -32768 || (key as number) > 32767) {
      return { path: ['keys', i], message: 'expected an integer from -32768 to 32767' };
    }
    if (i > 0 && (key as number) <= (keys[i - 1] as number)) return { path: ['keys', i], message: 'keys must be strictly increasing' };
    const count = counts[i];
    if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > MAX_BUCKET_COUNT) {
      return { path: ['counts', i], message: `expected an integer from 1 to ${MAX_BUCKET_COUNT}` };
    }
  }
  return null;
}

/**
 * A mergeable log-bucketed histogram (see lib/sketch). `keys[i]` is a bucket index, `counts[i]` its count;
 * values at or below the sketch's minimum land in `zeroCount`.
 */
export const sketchSchema = z
  .object({
    count: countSchema,
    sum: measurementSchema,
    min: measurementSchema,
    max: measurementSchema,
    zeroCount: z.number().int().min(0).max(MAX_BUCKET_COUNT),
    keys: bucketArraySchema,
    counts: bucketArraySchema,
  })
  .check((ctx) => {
    const sketch = ctx.value;
    const issue = bucketIssue(sketch.keys, sketch.counts);
    if (issue) {
      ctx.issues.push({ code: 'custom', message: issue.message, input: sketch, path: issue.path });
      return;
    }
    let total = sketch.zeroCount;
    for (let i = 0; i < sketch.counts.length; i++) total += sketch.counts[i]!;
    if (total !== sketch.count) {
      ctx.issues.push({ code: 'custom', message: 'count must equal zeroCount plus the bucket counts', input: sketch, path: ['count'] });
    }
    if (sketch.count > 0 && sketch.min > sketch.max) {
      ctx.issues.push({ code: 'custom', message: 'min must not exceed max', input: sketch, path: ['min'] });
    }
  });
export type SketchWire = z.infer<typeof sketchSchema>;

const tagKeySchema = z.string().min(1).max(100);
export const tagsSchema = z
  .record(tagKeySchema, z.string().max(200))
  .refine((tags) => Object.keys(tags).length <= 16, 'at most 16 tags');

export const latencySeriesSchema = z
  .object({
    name: nameSchema,
    tags: tagsSchema,
    /** Timings in milliseconds. */
    sketch: sketchSchema,
    /**
     * Present when the series came from a model server's histogram (the agent's --scrape): for each sketch key, in
     * order, how far the value it stands for may be from the true values, as a fraction of it (0.41 = ±41 %); null
     * for the server's open top bucket (`le="+Inf"`: the true values are higher). Absent: the sketch's own 0.8 %.
     */
    bucketErrors: z.array(z.number().min(0).max(1e6).nullable()).max(MAX_SKETCH_BUCKETS).optional(),
  })
  .check((ctx) => {
    const { bucketErrors, sketch } = ctx.value;
    if (bucketErrors !== undefined && bucketErrors.length !== sketch.keys.length) {
      ctx.issues.push({ code: 'custom', message: 'bucketErrors must have one entry per sketch key', input: ctx.value, path: ['bucketErrors'] });
    }
  });
export type LatencySeries = z.infer<typeof latencySeriesSchema>;

export const probeSampleSchema = z.object({
  name: nameSchema,
  target: z.string().min(1).max(500),
  ok: z.boolean(),
  connectMs: nonNegativeSchema.nullable(),
  responseMs: nonNegativeSchema.nullable(),
  error: z.string().max(500).nullable(),
});
export type ProbeSample = z.infer<typeof probeSampleSchema>;

/**
 * One model server the agent scrapes (--scrape NAME=URL), over the interval: request rate and mean latency and queue
 * time (means from the server's own sums and counts, never percentiles), and its queue and batch gauges. A scrape
 * that failed carries `ok: false`, the reason, and nulls.
 */
export const serverSampleSchema = z.object({
  name: nameSchema,
  ok: z.boolean(),
  error: z.string().max(500).nullable(),
  requestsPerS: nonNegativeSchema.nullable(),
  latencyMeanMs: nonNegativeSchema.nullable(),
  queueMeanMs: nonNegativeSchema.nullable(),
  /** Requests waiting for a slot (vLLM num_requests_waiting, TGI queue size, Triton pending requests). */
  waiting: nonNegativeSchema.nullable(),
  /** Requests being processed (vLLM num_requests_running). */
  running: nonNegativeSchema.nullable(),
  /** Current batch size (TGI), or the mean dynamic batch over the interval (Triton). */
  batchSize: nonNegativeSchema.nullable(),
  /** Latency series of this server left out this interval: over the agent's bound (--scrape-max-series) or unusable labels. */
  droppedSeries: countSchema,
  // Since the LLM engines' metrics; older agents omit them.
  /** Mean time per generated token over the interval (llama.cpp: generation seconds ÷ generated tokens). */
  tokenMeanMs: nonNegativeSchema.nullable().optional(),
  /** KV cache in use, 0–100 % (vLLM kv_cache_usage_perc, SGLang token_usage, TensorRT-LLM kv_cache_utilization). */
  kvCachePct: z.number().min(0).max(100).nullable().optional(),
  /** Requests evicted from the KV cache to be recomputed, per minute over the interval (vLLM preemptions, SGLang retractions). */
  preemptionsPerMin: nonNegativeSchema.nullable().optional(),
});
export type ServerSample = z.infer<typeof serverSampleSchema>;

export const HYPERVISORS = ['none', 'kvm', 'xen', 'vmware', 'hyperv', 'other'] as const;
export const DISK_CLASSES = ['nvme', 'ssd', 'hdd', 'virtual', 'other'] as const;

export const cpuInventorySchema = z.object({
  vendor: z.string().max(100),
  model: z.string().max(200),
  sockets: countSchema,
  cores: countSchema,
  threads: countSchema,
  numaNodes: countSchema,
  /** Each NUMA node's CPU list (/sys/devices/system/node/node<N>/cpulist), in node order; absent when not readable. */
  numaNodeCpus: z.array(z.string().max(1000)).max(1024).optional(),
  /** The flags every online CPU reports (the intersection). */
  flags: z.array(z.string().max(64)).max(1000),
  flagsUniform: z.boolean(),
  hypervisor: z.enum(HYPERVISORS),
  hypervisorVendor: z.string().max(100).nullable(),
  governor: z.string().max(64).nullable(),
});
export type CpuInventory = z.infer<typeof cpuInventorySchema>;

export const diskInventorySchema = z.object({
  device: nameSchema,
  class: z.enum(DISK_CLASSES),
  model: z.string().max(200).nullable(),
  rotational: z.boolean().nullable(),
  sizeBytes: nonNegativeSchema.nullable(),
  hwQueues: countSchema.nullable(),
  scheduler: z.string().max(64).nullable(),
});
export type DiskInventory = z.infer<typeof diskInventorySchema>;

export const dataPathSchema = z.object({
  path: z.string().min(1).max(1000),
  device: z.string().max(200).nullable(),
  mountPoint: z.string().max(1000).nullable(),
  fsType: z.string().max(64).nullable(),
});

export const envSchema = z.record(z.string(), z.string().max(1000)).check((ctx) => {
  for (const key of Object.keys(ctx.value)) {
    if (!isAllowedEnvVar(key)) {
      ctx.issues.push({ code: 'custom', message: `environment variable ${key} is not on the allow-list`, input: ctx.value, path: [key] });
    }
  }
});

export const cgroupConfigSchema = z.object({
  path: z.string().min(1).max(1000),
  version: z.union([z.literal(1), z.literal(2)]),
  quotaCores: nonNegativeSchema.nullable(),
  cpusetCpus: z.string().max(1000).nullable(),
  effectiveCpus: nonNegativeSchema,
});

export const logWarningSchema = z.object({ id: nameSchema, line: z.string().max(1000) });
export type LogWarning = z.infer<typeof logWarningSchema>;

/** Threading and math runtimes a watched process may load, recognised from the libraries in /proc/<pid>/maps. */
export const RUNTIME_IDS = [
  'intel-openmp',
  'gnu-openmp',
  'llvm-openmp',
  'openblas-pthreads',
  'openblas-openmp',
  'openblas',
  'mkl',
  'onednn',
  'tensorflow',
  'pytorch',
  'onnxruntime',
  'blis',
] as const;
export type RuntimeId = (typeof RUNTIME_IDS)[number];

export const loadedRuntimeSchema = z.object({ id: z.enum(RUNTIME_IDS), library: z.string().max(200) });
export type LoadedRuntime = z.infer<typeof loadedRuntimeSchema>;

export const processInventorySchema = z.object({
  name: nameSchema,
  pid: z.number().int().positive(),
  comm: z.string().max(64),
  threads: countSchema,
  cpusAllowedList: z.string().max(1000),
  cpusAllowedCount: countSchema,
  env: envSchema,
  /** Why /proc/<pid>/environ could not be read (e.g. another user's process); env is then `{}`. */
  envUnreadable: z.string().max(500).optional(),
  cgroup: cgroupConfigSchema.nullable(),
  /** The container the process runs in, named by its cgroup path; absent outside one and from older agents. */
  container: processContainerSchema.optional(),
  /** The runtimes the process has loaded; absent from agents that predate it, and when maps could not be read. */
  runtimes: z.array(loadedRuntimeSchema).max(32).optional(),
  /** Why /proc/<pid>/maps could not be read (e.g. another user's process); runtimes is then absent. */
  runtimesUnreadable: z.string().max(500).optional(),
  /** Known warnings found in the process's log (--watch-log), each reported once. */
  logWarnings: z.array(logWarningSchema).max(50),
});
export type ProcessInventory = z.infer<typeof processInventorySchema>;

export const hostInventorySchema = z.object({
  kernel: z.string().max(200).nullable(),
  memTotalBytes: nonNegativeSchema.nullable(),
  onlineCpus: countSchema,
});

export const inventorySchema = z.object({
  /** A digest of everything below; a new value means the inventory changed. */
  hash: z.string().min(1).max(128),
  host: hostInventorySchema,
  cpu: orUnavailable(cpuInventorySchema),
  disks: orUnavailable(z.array(diskInventorySchema).max(256)),
  dataPaths: z.array(dataPathSchema).max(32),
  cgroup: orUnavailable(cgroupConfigSchema),
  processes: z.array(processInventorySchema).max(64),
});
export type Inventory = z.infer<typeof inventorySchema>;

export const MAX_COLLECTORS = 32;
export const MAX_COLLECTOR_ERROR_CHARS = 200;
export const MAX_COLLECTOR_DURATION_MS = MAX_INTERVAL_MS;

/** One collector's run in the cycle a report covers, as node_exporter's node_scrape_collector_{duration_seconds,success}. */
export const collectorRunSchema = z.object({
  name: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'must be a collector name: 1–64 lowercase letters, digits and "-", starting with a letter'),
  durationMs: z.number().min(0).max(MAX_COLLECTOR_DURATION_MS),
  /** false when the collector threw or could only say why its data is unavailable. */
  ok: z.boolean(),
  error: z.string().min(1).max(MAX_COLLECTOR_ERROR_CHARS).optional(),
});
export type CollectorRun = z.infer<typeof collectorRunSchema>;

export const agentStatusSchema = z.object({
  version: z.string().min(1).max(50),
  /** Reports the spool has dropped since the agent's state was created (oldest first, when full). */
  droppedReports: countSchema,
  spoolBytes: nonNegativeSchema,
  malformedStatsdPackets: countSchema,
  /**
   * The agent's configured interval (--interval): how often it means to report, which `intervalMs` is not for the
   * first report after a start (a warm-up). Absent from agents before it, and from a one-off run (--once).
   */
  reportEveryMs: z.number().int().positive().max(MAX_INTERVAL_MS).optional(),
  /** The collectors run for this report, each once; absent from agents before it. */
  collectors: z
    .array(collectorRunSchema)
    .max(MAX_COLLECTORS)
    .refine((runs) => new Set(runs.map((run) => run.name)).size === runs.length, 'must name each collector once')
    .optional(),
});

// ECMAScript's bound on a time value: past it `new Date(ts)` is invalid and cannot be printed or stored.
const MAX_DATE_MS = 8_640_000_000_000_000;

export const reportSchema = refuseNul(z.object({
  v: z.literal(PROTOCOL_VERSION),
  seq: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  /** End of the measured interval, epoch milliseconds; at most the last instant a Date can hold (year 275760). */
  ts: z.number().int().positive().max(MAX_DATE_MS),
  intervalMs: z.number().int().positive().max(MAX_INTERVAL_MS),
  host: z.object({
    hostname: z.string().min(1).max(253),
    machineId: z.string().max(128).nullable(),
  }),
  agent: agentStatusSchema,
  cpu: orUnavailable(cpuSampleSchema),
  pressure: orUnavailable(pressureSampleSchema),
  disks: orUnavailable(z.array(diskSampleSchema).max(256)),
  cgroups: orUnavailable(z.array(cgroupSampleSchema).max(64)),
  processes: z.array(processSampleSchema).max(64),
  latency: z.array(latencySeriesSchema).max(500),
  probes: z.array(probeSampleSchema).max(64),
  /** The scraped model servers; absent from agents before --scrape and when none is configured. */
  servers: z.array(serverSampleSchema).max(32).optional(),
  inventory: inventorySchema.optional(),
}));
export type Report = z.infer<typeof reportSchema>;

export const MAX_REPORTS_PER_REQUEST = 1000;

export const ingestBatchSchema = z.object({
  reports: z.array(reportSchema).min(1).max(MAX_REPORTS_PER_REQUEST),
});

/** The ingest body is one report, or `{ reports: [...] }` (an agent's backlog after an outage). */
export function ingestSchemaFor(body: unknown) {
  const isBatch = typeof body === 'object' && body !== null && 'reports' in body;
  return isBatch ? ingestBatchSchema : reportSchema;
}

// z.compile generates a parser for each schema, far cheaper than interpreting it, and the ingest path runs it for
// every report. Input it rejects is parsed again by the runtime parser, so errors read the same. (A schema it
// cannot model would stay on the runtime parser; a unit test compiles these with { strict: true } to catch that.)
// Compiled on first use: the agent imports this module too and never parses an ingest body.
let compiled: { report: typeof reportSchema; batch: typeof ingestBatchSchema } | undefined;

export function parseIngestBody(body: unknown): Report[] {
  compiled ??= { report: z.compile(reportSchema), batch: z.compile(ingestBatchSchema) };
  const schema = ingestSchemaFor(body);
  if (schema === ingestBatchSchema) return compiled.batch.parse(body).reports;
  return [compiled.report.parse(body)];
}

export const ingestResponseSchema = z.object({
  accepted: countSchema,
  duplicate: countSchema,
  /** Every seq in the request: stored now or already stored before. The agent may forget them. */
  acknowledgedSeqs: z.array(z.number().int()),
});
export type IngestResponse = z.infer<typeof ingestResponseSchema>;

export const enrollRequestSchema = refuseNul(z.object({
  hostname: z.string().min(1).max(253),
  machineId: z.string().max(128).nullable(),
  /** The host token the agent holds, if any: proof that it is the host it enrolled as before. */
  hostToken: z.string().min(1).max(200).optional(),
}));
export type EnrollRequest = z.infer<typeof enrollRequestSchema>;
/** An enroll request is a few hundred bytes; anything past this is refused (413) while it streams in. */
export const MAX_ENROLL_BODY_BYTES = 16 * 1024;

export const enrollResponseSchema = z.object({
  hostId: z.number().int().positive(),
  token: z.string(),
  region: z.string(),
  /** The seq the agent must continue from, so a re-enrolled host never reuses an acknowledged seq. */
  nextSeq: z.number().int().min(0),
});
export type EnrollResponse = z.infer<typeof enrollResponseSchema>;
