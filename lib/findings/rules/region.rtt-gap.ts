import type { RegionFacts, RegionProbeFacts, RegionVerdict } from '../types';
import { defineRegionRule } from '../types';
import { exceeds } from '../thresholds';
import { fmt, minutes } from '../format';

type Measure = 'connect' | 'response';

interface Measured {
  region: RegionFacts;
  probe: RegionProbeFacts;
  ms: number;
}

const valueOf = (probe: RegionProbeFacts, measure: Measure) => (measure === 'connect' ? probe.medianConnectMs : probe.medianResponseMs);

/** Whole milliseconds, but a tenth below 10 ms, where single digits are the point. */
const ms = (value: number) => `${value < 10 ? fmt(value) : Math.round(value)} ms`;

/** The TCP connect time (≈ one round trip) where two regions or more have it, else the HTTP response time. */
function comparable(entries: readonly Omit<Measured, 'ms'>[]): { measure: Measure; measured: Measured[] } | null {
  for (const measure of ['connect', 'response'] as const) {
    const measured = entries.flatMap((e) => {
      const value = valueOf(e.probe, measure);
      return value === null ? [] : [{ ...e, ms: value }];
    });
    if (measured.length >= 2) return { measure, measured };
  }
  return null;
}

export const rttGap = defineRegionRule({
  id: 'region.rtt-gap',
  title: 'Region slower to a probe target than another region',
  category: 'region',
  severities: ['info'],
  defaults: {
    gapMs: { value: 20, unit: 'ms', description: 'how much slower than the best region a region\'s median RTT to the same probe must be' },
    clearGapMs: { value: 15, unit: 'ms', description: 'an open finding resolves once the gap falls below this' },
    minSamples: { value: 30, unit: 'samples', description: 'successful probes a region needs in the window to be compared' },
  },
  openAfterMs: 0,
  evaluate(regions, t, ctx) {
    const byProbe = new Map<string, Omit<Measured, 'ms'>[]>();
    for (const region of regions) {
      for (const probe of region.probes) {
        if (probe.samples < t.minSamples) continue;
        const list = byProbe.get(probe.name) ?? [];
        list.push({ region, probe });
        byProbe.set(probe.name, list);
      }
    }
    const verdicts: RegionVerdict[] = [];
    for (const [name, entries] of byProbe) {
      const compared = comparable(entries);
      if (!compared) continue;
      const { measure, measured } = compared;
      const best = measured.reduce((a, b) => (b.ms < a.ms ? b : a));
      for (const slow of measured) {
        if (slow === best) continue;
        const gap = slow.ms - best.ms;
        if (!exceeds(gap, t.gapMs, t.clearGapMs, ctx.isOpen(slow.region.region, name))) continue;
        verdicts.push(verdictFor(name, measure, slow, best, gap));
      }
    }
    return verdicts;
  },
});

function verdictFor(name: string, measure: Measure, slow: Measured, best: Measured, gap: number): RegionVerdict {
  const window = minutes(slow.region.toMs - slow.region.fromMs);
  const [s, b] = [slow.region.region, best.region.region];
  return {
    region: s,
    subject: name,
    severity: 'info',
    value: gap,
    message: `${s} +${ms(gap)} vs ${b} to ${name} (median ${measure} ${ms(slow.ms)} vs ${ms(best.ms)} over ${window})`,
    remedy:
      `If ${name} (${slow.probe.target}) stands for where users are, serve them from ${b}: route them there by geo-DNS or ` +
      `anycast, or move the replicas that serve them from ${s} to ${b}. Each request pays the ${ms(gap)} once, and each new ` +
      'connection two or three times more (TCP and TLS handshakes). If the target stands for no users (a dependency, a ' +
      `monitoring endpoint), the gap is paid by every call ${s} makes to it: place the callers near it instead.`,
    evidence: {
      values: [
        { label: `median ${measure}, ${s}`, value: slow.ms, unit: 'ms' },
        { label: `median ${measure}, ${b}`, value: best.ms, unit: 'ms' },
        { label: 'gap', value: gap, unit: 'ms' },
        { label: `probes from ${s}`, value: slow.probe.samples },
        { label: `probes from ${b}`, value: best.probe.samples },
        { label: `hosts probing from ${s}`, value: slow.probe.hosts },
        { label: 'target', value: slow.probe.target },
      ],
      window: { from: new Date(slow.region.fromMs).toISOString(), to: new Date(slow.region.toMs).toISOString() },
      series: [{ metric: measure === 'connect' ? 'probe_connect' : 'probe_response', key: name }],
    },
  };
}
