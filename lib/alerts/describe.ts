import type { AlertRule } from '../protocol/alerts';
import { formatDuration } from '../protocol/duration';
import { MINUTE_MS } from '../protocol/time';
import { METRIC_SOURCES } from '../series/metrics';
import type { Observation } from './evaluate';
import type { CpuStealMean } from '../series/per-cpu-steal';


/** What a cycle adds to an observation beyond its value: read only for the instances that need it. */
export interface Enrichment {
  /** The most-stolen vCPUs over the rule's window, most first (steal rules). */
  topStolenCpus?: CpuStealMean[];
  /** The findings engine's explanation of a latency alert. */
  likelyCause?: string;
}

export function formatNumber(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  return value.toFixed(abs >= 1 ? 1 : 2);
}

/** A silence reads to the second under 2 minutes and to the minute from then on. */
const roundSilence = (ms: number) => (ms >= 2 * MINUTE_MS ? Math.round(ms / MINUTE_MS) * MINUTE_MS : Math.round(ms / 1000) * 1000);

const withUnit = (value: number, unit: string) => (unit === '%' ? `${formatNumber(value)} %` : `${formatNumber(value)} ${unit}`);

/** "vCPUs 2 (31 %), 3 (27 %)": at most three, each stolen from at least half as much as the most (and 1 %). */
export function describeStolenCpus(cpus: readonly CpuStealMean[]): string | null {
  const most = Math.max(0, ...cpus.map((c) => c.stealPct));
  const top = cpus.filter((c) => c.stealPct >= 1 && c.stealPct >= most / 2).slice(0, 3);
  if (top.length === 0) return null;
  return `${top.length === 1 ? 'vCPU' : 'vCPUs'} ${top.map((c) => `${c.cpu} (${formatNumber(c.stealPct)} %)`).join(', ')}`;
}

/** The dashboard page of what an alert is about: its host's page, or its region's with the latency series. */
export function dashboardUrl(publicUrl: string, o: Pick<Observation, 'hostId' | 'region'> & { service?: string }): string {
  const base = publicUrl.replace(/\/+$/, '');
  if (o.hostId !== null) return `${base}/hosts/${o.hostId}`;
  if (!o.region) return `${base}/alerts`;
  const latency = o.service ? `&latency=${encodeURIComponent(o.service)}` : '';
  return `${base}/regions?regions=${encodeURIComponent(o.region)}${latency}`;
}

/** summary and description (and likely_cause) of an instance as this cycle saw it. */
export function describeObservation(rule: AlertRule, o: Observation, enrichment: Enrichment = {}): Record<string, string> {
  const { spec } = rule;
  const d = o.detail;
  const t = o.thresholds;
  const breached = o.judgement.breaching;
  const annotations: Record<string, string> = {};
  switch (d.kind) {
    case 'series': {
      const metric = spec.metric.kind === 'series' ? spec.metric : null;
      const unit = metric ? METRIC_SOURCES[metric.series].unit : '';
      const what = d.keyLabel && d.key !== null ? ` (${d.keyLabel} ${d.key})` : '';
      const value = o.value === null ? 'no longer reported' : withUnit(o.value, unit);
      annotations.summary = `${rule.title} on ${d.host.hostname}${what}: ${value}`;
      const aggregation = metric?.aggregation === 'max' ? 'maximum' : 'average';
      const parts = [`${formatDuration(spec.windowMs)} ${aggregation} ${value}`];
      parts.push(
        t.relative && t.baseline !== null
          ? `threshold ${withUnit(t.threshold, unit)} (${spec.relative!.factor} × the host's ${formatDuration(spec.relative!.baselineMs)} median of ${withUnit(t.baseline, unit)}, at least ${withUnit(spec.relative!.minValue, unit)})`
          : `threshold ${withUnit(t.threshold, unit)}`,
      );
      if (spec.forMs > 0) parts.push(`for ${formatDuration(spec.forMs)}`);
      let description = `${parts.join(', ')}; clears at ${withUnit(t.clearThreshold, unit)}.`;
      const cpus = enrichment.topStolenCpus ? describeStolenCpus(enrichment.topStolenCpus) : null;
      if (cpus) description += ` Lost most: ${cpus}.`;
      annotations.description = description;
      if (cpus) annotations.vcpus = cpus;
      break;
    }
    case 'latency-burn': {
      const m = spec.metric.kind === 'latency-burn' ? spec.metric : null;
      const objective = m ? `${formatNumber(m.objective * 100)} % of requests under ${formatNumber(m.latencyMs)} ms` : 'its objective';
      annotations.summary = `${rule.title}: ${d.service} in ${d.region} burns its error budget at ${formatNumber(o.value ?? 0)}×`;
      annotations.description =
        `Objective ${objective}. Burn rate ${formatNumber(d.longBurn)}× over ${formatDuration(spec.windowMs)} (${d.longTotal} requests) and ` +
        `${formatNumber(d.shortBurn)}× over ${formatDuration(m?.shortWindowMs ?? 0)} (${d.shortTotal} requests); ` +
        `${breached ? 'both above' : 'threshold'} ${formatNumber(t.threshold)}×, clears at ${formatNumber(t.clearThreshold)}×.`;
      break;
    }
    case 'latency-quantile': {
      const q = spec.metric.kind === 'latency-quantile' ? spec.metric.quantile : 0;
      annotations.summary = `${rule.title}: p${formatNumber(q * 100)} of ${d.service} in ${d.region} is ${formatNumber(o.value ?? 0)} ms`;
      annotations.description =
        `p${formatNumber(q * 100)} over ${formatDuration(spec.windowMs)} of ${d.count} requests (merged histograms of the region's hosts): ` +
        `${formatNumber(o.value ?? 0)} ms, threshold ${formatNumber(t.threshold)} ms, clears at ${formatNumber(t.clearThreshold)} ms.`;
      break;
    }
    case 'host-silence':
      annotations.summary = `${d.host.hostname} (${d.host.region}) stopped reporting`;
      annotations.description =
        `No report for ${formatDuration(roundSilence(d.silentMs))}: ${formatNumber(o.value ?? 0)} of its ${formatDuration(d.intervalMs)} intervals ` +
        `(alerts after ${formatNumber(t.threshold)} missed).`;
      break;
    case 'finding': {
      const f = d.finding;
      if (!f) break;
      const where = d.host ? `${d.host.hostname} (${f.region})` : f.region;
      annotations.summary = `${rule.title}: ${f.ruleId} on ${where}`;
      annotations.description = `${f.message} Remedy: ${f.remedy}`;
      break;
    }
  }
  if (enrichment.likelyCause) {
    annotations.likely_cause = enrichment.likelyCause;
    annotations.description = `${annotations.description ?? ''} Likely cause: ${enrichment.likelyCause}`.trim();
  }
  return annotations;
}
