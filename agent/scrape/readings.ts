import { BATCH_RATIO, KNOWN_COUNTER_PAIRS, KNOWN_GAUGES, KV_CACHE_GAUGES, PREEMPTION_COUNTERS, PROCESS_START_METRIC, TRTLLM_KV_BLOCKS, type GaugeRole, type HistogramSource } from './catalog';
import type { CounterReading, HistogramReading } from './deltas';
import { canonicalLabels, parsePromNumber, type MetricFamily, type Sample } from './exposition';
import { ScrapeError } from './target';

export interface LabelledHistogram {
  labels: Record<string, string>;
  reading: HistogramReading;
}

/** What one exposition says, reduced to what the agent uses. */
export interface TargetReading {
  /** metric → label key → histogram. */
  histograms: Map<string, Map<string, LabelledHistogram>>;
  /** sample name → label key → value, for the counters of the counter pairs and the batch ratio. */
  counters: Map<string, Map<string, CounterReading>>;
  gauges: Partial<Record<GaugeRole, number>>;
  /** The fullest engine's KV cache in use, 0–1; null when none publishes it or every value is out of range. */
  kvCacheFraction: number | null;
  /** The server process's start time, when published: a change means it restarted. */
  processStart: number | null;
}

const COUNTER_NAMES = new Set([
  ...KNOWN_COUNTER_PAIRS.flatMap((p) => [p.duration, ...p.requests]),
  BATCH_RATIO.items,
  BATCH_RATIO.executions,
  ...PREEMPTION_COUNTERS,
]);

function withoutLe(labels: Record<string, string>): Record<string, string> {
  const rest = { ...labels };
  delete rest.le;
  return rest;
}

function indexSamples(families: readonly MetricFamily[]): Map<string, Sample[]> {
  const index = new Map<string, Sample[]>();
  for (const family of families) {
    for (const sample of family.samples) {
      const list = index.get(sample.name);
      if (list) list.push(sample);
      else index.set(sample.name, [sample]);
    }
  }
  return index;
}

const describe = (metric: string, labels: Record<string, string>) => {
  const keys = Object.keys(labels);
  return keys.length ? `${metric}{${keys.map((k) => `${k}="${labels[k]}"`).join(',')}}` : metric;
};

/**
 * The histograms of one metric by label set, checked as Prometheus defines them: a `+Inf` bucket, cumulative counts
 * that never decrease with `le`, whole counts, `_count` equal to the `+Inf` bucket. A histogram that breaks this is
 * a malformed exposition (ScrapeError): nothing of the scrape is used.
 */
function readHistograms(index: Map<string, Sample[]>, metric: string): Map<string, LabelledHistogram> {
  const out = new Map<string, LabelledHistogram>();
  const buckets = index.get(`${metric}_bucket`);
  if (!buckets) return out;
  const groups = new Map<string, { labels: Record<string, string>; points: [number, number][] }>();
  for (const sample of buckets) {
    const le = sample.labels.le;
    const labels = withoutLe(sample.labels);
    if (le === undefined) throw new ScrapeError(`${describe(`${metric}_bucket`, labels)} has no "le" label`);
    const bound = parsePromNumber(le);
    if (Number.isNaN(bound)) throw new ScrapeError(`${describe(`${metric}_bucket`, labels)} has le="${le}", not a number`);
    const key = canonicalLabels(labels);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { labels, points: [] }));
    group.points.push([bound, sample.value]);
  }
  const byKey = (name: string) => new Map((index.get(name) ?? []).map((s) => [canonicalLabels(s.labels), s.value] as const));
  const counts = byKey(`${metric}_count`);
  const sums = byKey(`${metric}_sum`);
  const created = byKey(`${metric}_created`);
  for (const [key, group] of groups) {
    const what = describe(metric, group.labels);
    group.points.sort((a, b) => a[0] - b[0]);
    const bounds = group.points.map((p) => p[0]);
    const cumulative = group.points.map((p) => p[1]);
    if (bounds.at(-1) !== Infinity) throw new ScrapeError(`${what} has no le="+Inf" bucket`);
    if (bounds.length < 2) throw new ScrapeError(`${what} has no finite bucket`);
    for (let i = 0; i < cumulative.length; i++) {
      const c = cumulative[i]!;
      if (!Number.isInteger(c) || c < 0) throw new ScrapeError(`${what} has a bucket count of ${c}, not a whole number ≥ 0`);
      if (i > 0 && c < cumulative[i - 1]!) throw new ScrapeError(`${what}: the count at le="${bounds[i]}" is below the one before (buckets must be cumulative)`);
      if (i > 0 && bounds[i] === bounds[i - 1]) throw new ScrapeError(`${what} repeats le="${bounds[i]}"`);
    }
    const count = counts.get(key);
    if (count !== undefined && count !== cumulative.at(-1)) throw new ScrapeError(`${what}: _count ${count} differs from the +Inf bucket ${cumulative.at(-1)}`);
    const sum = sums.get(key);
    if (sum === undefined || !Number.isFinite(sum)) throw new ScrapeError(`${what} has no finite _sum`);
    out.set(key, { labels: group.labels, reading: { bounds, cumulative, sum, created: created.get(key) ?? null } });
  }
  return out;
}

/** TensorRT-LLM (Triton backend): per model, used ÷ max KV blocks; none where either is missing, max is 0 or used > max. */
function trtllmKvFractions(index: Map<string, Sample[]>): number[] {
  const { metric, label, used, max } = TRTLLM_KV_BLOCKS;
  const byModel = new Map<string, { used?: number; max?: number }>();
  for (const sample of index.get(metric) ?? []) {
    const kind = sample.labels[label];
    if (kind !== used && kind !== max) continue;
    const rest = { ...sample.labels };
    delete rest[label];
    const key = canonicalLabels(rest);
    const entry = byModel.get(key) ?? {};
    entry[kind] = sample.value;
    byModel.set(key, entry);
  }
  return [...byModel.values()].flatMap((b) => (b.used !== undefined && b.max !== undefined && b.max > 0 && b.used >= 0 && b.used <= b.max ? [b.used / b.max] : []));
}

/** Reduces a parsed exposition to the readings the agent uses; throws ScrapeError when one of them is malformed. */
export function readTarget(families: readonly MetricFamily[], histogramSources: readonly HistogramSource[]): TargetReading {
  const index = indexSamples(families);
  const histograms = new Map<string, Map<string, LabelledHistogram>>();
  for (const source of histogramSources) {
    const found = readHistograms(index, source.metric);
    if (found.size > 0) histograms.set(source.metric, found);
  }
  const counters = new Map<string, Map<string, CounterReading>>();
  for (const name of COUNTER_NAMES) {
    const samples = index.get(name);
    if (!samples) continue;
    const created = new Map((index.get(`${name.replace(/_total$/, '')}_created`) ?? []).map((s) => [canonicalLabels(s.labels), s.value] as const));
    const values = new Map<string, CounterReading>();
    for (const sample of samples) {
      if (!(sample.value >= 0) || sample.value === Infinity) throw new ScrapeError(`${describe(name, sample.labels)} is ${sample.value}, not a counter value`);
      const key = canonicalLabels(sample.labels);
      values.set(key, { value: sample.value, created: created.get(key) ?? null });
    }
    counters.set(name, values);
  }
  const gauges: Partial<Record<GaugeRole, number>> = {};
  for (const [name, role] of Object.entries(KNOWN_GAUGES)) {
    for (const sample of index.get(name) ?? []) {
      if (!Number.isFinite(sample.value) || sample.value < 0) continue;
      gauges[role] = (gauges[role] ?? 0) + sample.value;
    }
  }
  let kvCacheFraction: number | null = null;
  for (const name of KV_CACHE_GAUGES) {
    for (const sample of index.get(name) ?? []) {
      // A fraction outside 0–1 is not a KV cache reading (NaN before the engine's first step, or a foreign metric).
      if (!(sample.value >= 0 && sample.value <= 1)) continue;
      kvCacheFraction = Math.max(kvCacheFraction ?? 0, sample.value);
    }
  }
  for (const fraction of trtllmKvFractions(index)) kvCacheFraction = Math.max(kvCacheFraction ?? 0, fraction);
  const start = index.get(PROCESS_START_METRIC)?.[0]?.value;
  return { histograms, counters, gauges, kvCacheFraction, processStart: start !== undefined && Number.isFinite(start) ? start : null };
}
