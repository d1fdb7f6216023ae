import type { LatencyCause, LatencyP99, LatencyRegionCheck, LatencyVerdict } from '../../protocol/findings';
import { fmt, formatCpuList } from '../format';
import type { GaugeObservation, InventoryObservation, RegionObservation } from './facts';
import { DEFAULT_METHOD, type ExplainMethod } from './method';
import { median, spearman } from './rank-correlation';

export interface ExplainInput {
  name: string;
  fromMs: number;
  toMs: number;
  /** The median of its hourly p99s, and how many of the `ofHours` hours of its range had requests. */
  baseline: LatencyP99 & { hours: number; ofHours: number };
  current: LatencyP99;
  /** p99 per minute of the current range, by minute start (ms). */
  perMinuteP99: ReadonlyMap<number, number>;
  gauges: readonly GaugeObservation[];
  inventory: readonly InventoryObservation[];
  region: RegionObservation | null;
}

export interface Explained {
  verdict: LatencyVerdict;
  regressed: boolean;
  ratio: number | null;
  region: LatencyRegionCheck | null;
  causes: LatencyCause[];
  summary: string;
}

/** Spiking minutes needed to call spikes recurring rather than one slow minute. */
const MIN_SPIKES = 3;
/** Minutes of per-minute p99 needed on each side of an inventory change to call it a step. */
const STEP_MINUTES = 3;
/** Ranking when nothing minute by minute says whether a cause moved with p99. */
const UNKNOWN_TRACKING = 0.5;

export const fmtMs = (ms: number) => `${ms >= 10 ? Math.round(ms) : fmt(ms)} ms`;
const round2 = (x: number) => Math.round(x * 100) / 100;
const fmtValue = (value: number, unit: string) =>
  unit === '%' ? `${fmt(value)} %` : unit === 'ms' ? fmtMs(value) : unit === '/min' ? `${fmt(value)}/min` : fmt(value);
const hhmm = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)} UTC`;

/** p99 regressed: above `ratio` × baseline and at least `minRiseMs` above it. */
export function isRegression(current: number | null, baseline: number | null, ratio: number, minRiseMs: number): boolean {
  if (current === null || baseline === null) return false;
  return current > ratio * baseline && current - baseline >= minRiseMs;
}

/** `magnitude` 0–1 (a rise of r minimum changes is r / (r + 1)), `tracking` how it moved with p99 minute by minute. */
function strengthOf(magnitude: number, tracking: number | null): number {
  return round2((magnitude + (tracking === null ? UNKNOWN_TRACKING : Math.max(0, tracking))) / 2);
}

function gaugeSummary(o: GaugeObservation, before: number, after: number): string {
  const { gauge } = o;
  const change = gauge.unit === 'ms'
    ? `${fmt(before)} → ${fmtMs(after)}`
    : `${fmtValue(before, gauge.unit)} → ${fmtValue(after, gauge.unit)}${gauge.unit === '% of periods' ? ' % of periods' : ''}`;
  switch (gauge.kind) {
    case 'steal':
      return `steal ${change}${o.cpus?.length ? ` (most on vCPU${o.cpus.length > 1 ? 's' : ''} ${formatCpuList(o.cpus)})` : ''}`;
    case 'disk-await':
    case 'disk-queue':
      return `${o.key} ${gauge.label} ${change}`;
    case 'throttling':
      return `CPU throttling of ${o.key} ${change}`;
    case 'queue':
    case 'kv-cache':
      return `${o.key} ${gauge.label} ${change}`;
    default:
      return `${gauge.label} ${change}`;
  }
}

/**
 * A bounded gauge's level in the minutes p99 was regressed (above `ratio` × the baseline): a KV cache that filled
 * 20 minutes into the hour is full while requests are slow, which its average over the hour would hide. Its average
 * over the range when too few minutes were slow to say.
 */
function levelWhileSlow(o: GaugeObservation, input: ExplainInput, method: ExplainMethod): number | null {
  const slowAboveMs = method.ratio * (input.baseline.p99Ms ?? Infinity);
  const slow = o.perMinute ? [...o.perMinute].filter(([t]) => (input.perMinuteP99.get(t) ?? 0) > slowAboveMs).map(([, v]) => v) : [];
  return slow.length >= method.minCorrelationMinutes ? mean(slow) : o.after;
}

/** The gauge's causes: it rose by its minimum change and to `causeRatio` × its baseline; never one that did not move. */
function gaugeCause(o: GaugeObservation, input: ExplainInput, method: ExplainMethod): LatencyCause | null {
  const { before, gauge } = o;
  const after = gauge.atLeast === undefined ? o.after : levelWhileSlow(o, input, method);
  if (before === null || after === null) return null;
  const delta = after - before;
  if (delta < gauge.minChange || after < (gauge.atLeast ?? method.causeRatio * before)) return null;
  let correlation: number | null = null;
  const minutes = o.perMinute ? [...o.perMinute.entries()].filter(([t]) => input.perMinuteP99.has(t)) : [];
  const values = minutes.map(([, v]) => v);
  // A gauge flat within the range (it stepped before it) says nothing minute by minute, either way.
  if (minutes.length >= method.minCorrelationMinutes && Math.max(...values) - Math.min(...values) >= gauge.minChange) {
    const rho = spearman(values, minutes.map(([t]) => input.perMinuteP99.get(t)!));
    correlation = rho === null ? null : round2(rho);
  }
  return {
    kind: gauge.kind,
    subject: o.key ?? (gauge.kind === 'pressure' ? gauge.metric.replace('psi_', '') : null),
    summary: gaugeSummary(o, before, after),
    before,
    after,
    unit: gauge.unit,
    strength: strengthOf(delta / gauge.minChange / (delta / gauge.minChange + 1), correlation),
    correlation,
    series: { metric: gauge.metric, key: o.key },
  };
}

/** How far per-minute p99 stepped up at the change, 0–1 (1 at `ratio` ×); null without minutes on both sides. */
function stepAt(atMs: number, perMinute: ReadonlyMap<number, number>, ratio: number): number | null {
  const before = [...perMinute].filter(([t]) => t < atMs).map(([, v]) => v);
  const after = [...perMinute].filter(([t]) => t >= atMs).map(([, v]) => v);
  if (before.length < STEP_MINUTES || after.length < STEP_MINUTES) return null;
  const step = median(after)! / Math.max(median(before)!, 1e-9);
  return Math.min(1, Math.max(0, (step - 1) / (ratio - 1)));
}

function inventoryCause(o: InventoryObservation, input: ExplainInput, method: ExplainMethod): LatencyCause {
  const tracking = stepAt(o.atMs, input.perMinuteP99, method.ratio);
  return {
    kind: 'inventory',
    subject: null,
    summary: `inventory change at ${hhmm(o.atMs)}: ${o.changes.join(', ')}`,
    before: null,
    after: null,
    unit: '',
    // A configuration change is a full step of its own; only its timing against p99 can weaken it.
    strength: strengthOf(1, tracking),
    correlation: tracking === null ? null : round2(tracking),
    series: null,
  };
}

const serverRank = (c: LatencyCause) => (c.kind === 'queue' ? 2 : c.kind === 'kv-cache' ? 1 : 0);

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** A gauge that was higher in the spiking minutes than in the calm ones and moved with p99 minute by minute. */
function spikeCause(o: GaugeObservation, input: ExplainInput, spiking: ReadonlySet<number>, method: ExplainMethod): LatencyCause | null {
  const paired = o.perMinute ? [...o.perMinute].filter(([t]) => input.perMinuteP99.has(t)) : [];
  if (paired.length < method.minCorrelationMinutes) return null;
  const inSpikes = paired.filter(([t]) => spiking.has(t)).map(([, v]) => v);
  const calm = paired.filter(([t]) => !spiking.has(t)).map(([, v]) => v);
  if (inSpikes.length === 0 || calm.length === 0) return null;
  const [before, after] = [mean(calm), mean(inSpikes)];
  const delta = after - before;
  if (delta < o.gauge.minChange || after < (o.gauge.atLeast ?? method.causeRatio * before)) return null;
  const rho = spearman(paired.map(([, v]) => v), paired.map(([t]) => input.perMinuteP99.get(t)!));
  if (rho === null || rho < method.spikeCorrelation) return null;
  return {
    kind: o.gauge.kind,
    subject: o.key ?? (o.gauge.kind === 'pressure' ? o.gauge.metric.replace('psi_', '') : null),
    summary: `${gaugeSummary({ ...o, cpus: undefined }, before, after)} from calm minutes to spiking ones`,
    before,
    after,
    unit: o.gauge.unit,
    strength: strengthOf(delta / o.gauge.minChange / (delta / o.gauge.minChange + 1), rho),
    correlation: round2(rho),
    series: { metric: o.gauge.metric, key: o.key },
  };
}

/**
 * p99 can be in line with its baseline hour by hour because the baseline is as bad: spikes that recur every few
 * minutes sit in every hour's p99. Minutes above `ratio` × the range's typical minute, with a gauge that moves with
 * them, are explained; spikes nothing moves with are left unexplained (never an invented cause).
 */
function recurringSpikes(input: ExplainInput, method: ExplainMethod) {
  const minutes = [...input.perMinuteP99.values()];
  if (minutes.length < method.minCorrelationMinutes) return null;
  const typicalMs = median(minutes)!;
  const aboveMs = Math.max(method.ratio * typicalMs, typicalMs + method.minRiseMs);
  const spiking = new Set([...input.perMinuteP99].filter(([, v]) => v > aboveMs).map(([t]) => t));
  if (spiking.size < MIN_SPIKES) return null;
  const causes = input.gauges.flatMap((o) => spikeCause(o, input, spiking, method) ?? []).sort((a, b) => b.strength - a.strength || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
  if (causes.length === 0) return null;
  return { typicalMs, aboveMs, peakMs: Math.max(...minutes), spiking: spiking.size, minutes: minutes.length, causes };
}

function regionCheck(region: RegionObservation, hostRatio: number, method: ExplainMethod): LatencyRegionCheck {
  if (region.method === 'host-count') {
    const regressed = region.otherHosts >= 2 && region.otherHostsRegressed >= method.regionShare * region.otherHosts;
    return { ...region, regressed };
  }
  const { baseline, current } = region;
  const rose = current.requests >= method.minRequests && isRegression(current.p99Ms, baseline.p99Ms, method.ratio, method.minRiseMs);
  const regionRatio = rose ? current.p99Ms! / baseline.p99Ms! : 1;
  return { ...region, regressed: rose && regionRatio - 1 >= method.regionShare * (hostRatio - 1) };
}

function regionCause(check: LatencyRegionCheck): LatencyCause {
  const summary =
    check.method === 'region-p99'
      ? `the rest of ${check.region} rose as well (p99 ${fmt(Math.round(check.baseline.p99Ms!))} → ${fmtMs(check.current.p99Ms!)})`
      : `${check.otherHostsRegressed} of ${check.otherHosts} other hosts in ${check.region} regressed at the same time`;
  const values = check.method === 'region-p99' ? { before: check.baseline.p99Ms, after: check.current.p99Ms, unit: 'ms' } : { before: null, after: null, unit: '' };
  return { kind: 'region', subject: check.region, summary, ...values, strength: 1, correlation: null, series: null };
}

const KIND_ORDER = ['region', 'inventory', 'steal', 'throttling', 'disk-await', 'disk-queue', 'iowait', 'pressure', 'kv-cache', 'queue'];

const KV_PRESSURE =
  'KV cache pressure (evicted requests are computed again) — raise `gpu_memory_utilization` (vLLM) or `--mem-fraction-static` ' +
  '(SGLang), lower `max_num_seqs`, or add a replica';

/** "KV cache at 98 % and 40 preemptions/min" from the KV causes, per server, in the order they rank. */
function kvPhrase(causes: readonly LatencyCause[]): string {
  const servers = [...new Set(causes.map((c) => c.subject))];
  return servers
    .map((server) => {
      const of = causes.filter((c) => c.subject === server);
      const cache = of.find((c) => c.series?.metric === 'server_kv_cache');
      const preempt = of.find((c) => c.series?.metric === 'server_preemptions');
      const parts = [
        cache ? `KV cache at ${fmt(Math.round(cache.after!))} %` : null,
        preempt ? `${fmt(Math.round(preempt.after! * 10) / 10)} preemptions/min (from ${fmt(Math.round(preempt.before! * 10) / 10)})` : null,
      ].filter((p) => p !== null);
      return `${server ?? 'the model server'}: ${parts.join(' and ')}`;
    })
    .join('; ');
}

/**
 * The judgement of docs/findings/latency-explained.md over measured inputs: did p99 regress against its baseline,
 * did the rest of the region regress at once, and which gauges and inventory changes moved with it, strongest
 * first. Pure: the readers (explainLatency, the findings engine's latency facts) measure.
 */
export function explainRegression(input: ExplainInput, method: ExplainMethod = DEFAULT_METHOD): Explained {
  const { baseline, current, name } = input;
  const none = { regressed: false, region: null, causes: [] };
  if (current.p99Ms === null || current.requests < method.minRequests) {
    return { ...none, verdict: 'insufficient-data', ratio: null, summary: `Too few requests of ${name} to judge: ${current.requests} in the range (at least ${method.minRequests}).` };
  }
  const hadOf = `${fmt(baseline.hours)} h of ${fmt(baseline.ofHours)}`;
  if (baseline.p99Ms === null || baseline.hours < method.minBaselineHours) {
    return {
      ...none,
      verdict: 'insufficient-data',
      ratio: null,
      summary: `No baseline for ${name} yet: ${hadOf} with requests (it needs at least ${fmt(method.minBaselineHours)} h).`,
    };
  }
  const ratio = round2(current.p99Ms / Math.max(baseline.p99Ms, 1e-9));
  // A new install is judged on the part of the day it has, and says how much that was.
  const ratioNote = `${fmt(ratio)}×${baseline.hours < baseline.ofHours ? `; baseline: ${hadOf}` : ''}`;
  const change = `p99 of ${name} rose from ${fmtMs(baseline.p99Ms)} to ${fmtMs(current.p99Ms)} (${ratioNote})`;
  const region = input.region ? regionCheck(input.region, current.p99Ms / baseline.p99Ms, method) : null;
  if (!isRegression(current.p99Ms, baseline.p99Ms, method.ratio, method.minRiseMs)) {
    const spikes = recurringSpikes(input, method);
    if (spikes) {
      const [top, ...rest] = spikes.causes;
      const also = rest.length ? `; also ${rest.slice(0, 2).map((c) => `${c.summary} (ρ = ${c.correlation!.toFixed(2)})`).join('; ')}` : '';
      return {
        verdict: 'recurring-spikes',
        regressed: false,
        ratio,
        region,
        causes: spikes.causes,
        summary:
          `p99 of ${name} was ${fmtMs(current.p99Ms)}, in line with its baseline of ${fmtMs(baseline.p99Ms)} (${ratioNote}), but in ` +
          `${spikes.spiking} of ${spikes.minutes} minutes it spiked above ${fmtMs(spikes.aboveMs)} (to ${fmtMs(spikes.peakMs)}; typically ` +
          `${fmtMs(spikes.typicalMs)}), moving with ${top!.summary} (ρ = ${top!.correlation!.toFixed(2)})${also}. Its baseline hours held such ` +
          `spikes too: a standing problem, not a new one.${top!.kind === 'kv-cache' ? ` ${KV_PRESSURE}.` : ''}`,
      };
    }
    return {
      ...none,
      verdict: 'no-regression',
      ratio,
      region,
      summary: `p99 of ${name} was ${fmtMs(current.p99Ms)} against a baseline of ${fmtMs(baseline.p99Ms)} (${ratioNote}): no regression.`,
    };
  }
  const hostCauses = [
    ...input.gauges.flatMap((o) => gaugeCause(o, input, method) ?? []),
    ...input.inventory.filter((o) => o.changes.length > 0).map((o) => inventoryCause(o, input, method)),
  ].sort(
    // A server's queue grows whenever its requests slow down: with a host cause it is that cause's symptom, so it
    // never ranks above one. A full KV cache queues requests too (they wait for blocks), so it ranks above the queue,
    // but below any host cause: preemption is the engine's answer to load, not what slowed the host.
    (a, b) => serverRank(a) - serverRank(b) || b.strength - a.strength || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind),
  );
  if (region?.regressed) {
    return { verdict: 'region-wide', regressed: true, ratio, region, causes: [regionCause(region), ...hostCauses], summary: `${change}, and ${regionCause(region).summary}: region-wide, not this host.` };
  }
  const [top, ...rest] = hostCauses;
  if (top?.kind === 'kv-cache') {
    const kv = hostCauses.filter((c) => c.kind === 'kv-cache');
    const others = hostCauses.filter((c) => c.kind !== 'kv-cache');
    const also = others.length ? `; also ${others.slice(0, 2).map((c) => c.summary).join('; ')}` : '';
    const summary = `${change} with ${kvPhrase(kv)}${also}, and no host cause: ${KV_PRESSURE}.`;
    return { verdict: 'kv-pressure', regressed: true, ratio, region, causes: hostCauses, summary };
  }
  if (top?.kind === 'queue') {
    const also = rest.length ? `; also ${rest.slice(0, 2).map((c) => c.summary).join('; ')}` : '';
    const summary = `${change} with the model server’s queue (${top.summary}${also}) and no host cause: saturation — add replicas.`;
    return { verdict: 'saturated', regressed: true, ratio, region, causes: hostCauses, summary };
  }
  const also = rest.length ? `; also ${rest.slice(0, 2).map((c) => c.summary).join('; ')}` : '';
  const summary = top ? `${change}; likely cause: ${top.summary}${also}.` : `${change}; no host-level cause found.`;
  return { verdict: 'regressed', regressed: true, ratio, region, causes: hostCauses, summary };
}
