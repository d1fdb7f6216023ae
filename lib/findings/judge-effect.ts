import type { EffectVerdict, FindingEffect, GaugeEffect, LatencyEffect } from '../protocol/findings';
import { fmt } from './format';

/** Below this many requests in either window a p99 is not compared: the same floor latency explained uses. */
export const EFFECT_MIN_REQUESTS = 200;
/** A p99 that moved by less than this fraction is within the hour-to-hour wobble of a steady service. */
export const EFFECT_MIN_CHANGE = 0.1;
/** How many latency series and inventory changes a summary names. */
const SUMMARY_ITEMS = 3;

interface Range {
  fromMs: number;
  toMs: number;
}

export interface EffectMeasurements {
  resolvedAtMs: number;
  measureAfterMs: number;
  change: { atMs: number; changes: string[] } | null;
  before: Range;
  after: Range;
  latency: Omit<LatencyEffect, 'verdict'>[];
  gauges: GaugeEffect[];
}

export function latencyVerdict(before: LatencyEffect['before'], after: LatencyEffect['after'], minRequests = EFFECT_MIN_REQUESTS): EffectVerdict {
  if (before.requests < minRequests || after.requests < minRequests || before.p99Ms === null || after.p99Ms === null) return 'not-enough-requests';
  const ratio = after.p99Ms / Math.max(before.p99Ms, 1e-9);
  if (ratio <= 1 - EFFECT_MIN_CHANGE) return 'improved';
  if (ratio >= 1 + EFFECT_MIN_CHANGE) return 'worse';
  return 'no-change';
}

const count = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (value: number) => `${value >= 100 ? Math.round(value) : fmt(value, value >= 10 ? 1 : 2)}`;
const utcTime = (atMs: number) => `${new Date(atMs).toISOString().slice(11, 16)} UTC`;
const iso = (atMs: number) => new Date(atMs).toISOString();

function latencyText(l: LatencyEffect): string {
  const requests = `(${count(l.before.requests)} / ${count(l.after.requests)} requests)`;
  if (l.verdict === 'not-enough-requests') return `${l.name}: not enough requests to compare ${requests}`;
  const move = `p99 \`${l.name}\` ${ms(l.before.p99Ms!)} → ${ms(l.after.p99Ms!)} ms`;
  return l.verdict === 'no-change' ? `${move}, no change seen ${requests}` : `${move} ${requests}`;
}

function gaugeText(g: GaugeEffect): string | null {
  if (g.before === null || g.after === null) return null;
  const key = g.key ? ` ${g.key}` : '';
  return `${g.metric}${key} ${fmt(g.before)} → ${fmt(g.after)}${g.unit ? ` ${g.unit}` : ''}`;
}

/** The changes a person looks for first: settings before restarts and thread counts, which follow from them. */
function rankChanges(changes: readonly string[]): string[] {
  const weight = (c: string) => (/ restarted \(| threads \d/.test(c) ? 1 : 0);
  return [...changes].sort((a, b) => weight(a) - weight(b));
}

/** How far a compared p99 moved, either way; a series that could not be compared sorts last. */
const movement = (l: LatencyEffect) =>
  l.verdict === 'not-enough-requests' ? -1 : Math.abs(Math.log(Math.max(l.after.p99Ms!, 1e-9) / Math.max(l.before.p99Ms!, 1e-9)));

/** The series that moved most first (what the fix changed), then the busiest, then by name. */
function byMovement(a: LatencyEffect, b: LatencyEffect): number {
  return movement(b) - movement(a) || b.before.requests + b.after.requests - (a.before.requests + a.after.requests) || (a.name < b.name ? -1 : 1);
}

/** One verdict for the whole fix, over its latency series. */
export function outcomeOf(verdicts: readonly EffectVerdict[]): EffectVerdict {
  if (verdicts.includes('worse')) return 'worse';
  if (verdicts.includes('improved')) return 'improved';
  return verdicts.includes('no-change') ? 'no-change' : 'not-enough-requests';
}

/** The verdicts and the sentence of a measured fix, from what was read; names nothing it did not measure. */
export function judgeEffect(m: EffectMeasurements, minRequests = EFFECT_MIN_REQUESTS): FindingEffect {
  const latency = m.latency.map((l) => ({ ...l, verdict: latencyVerdict(l.before, l.after, minRequests) })).sort(byMovement);
  const changes = m.change ? rankChanges(m.change.changes) : [];
  const by = changes.length
    ? ` by ${changes.slice(0, SUMMARY_ITEMS).join(', ')}${changes.length > SUMMARY_ITEMS ? ` and ${changes.length - SUMMARY_ITEMS} more` : ''}`
    : ' with no inventory change';
  const parts = latency.slice(0, SUMMARY_ITEMS).map(latencyText);
  if (latency.length === 0) parts.push('no latency series reported in either hour');
  else if (latency.every((l) => l.verdict === 'no-change')) parts.push('no change seen in latency');
  const gauges = m.gauges.map(gaugeText).filter((text) => text !== null);
  const summary = `Resolved at ${utcTime(m.resolvedAtMs)}${by}: ${parts.join('; ')}${gauges.length ? `; ${gauges.join('; ')}` : ''}.`;
  return {
    status: 'measured',
    resolvedAt: iso(m.resolvedAtMs),
    measureAfter: iso(m.measureAfterMs),
    change: m.change ? { at: iso(m.change.atMs), changes } : null,
    before: { from: iso(m.before.fromMs), to: iso(m.before.toMs) },
    after: { from: iso(m.after.fromMs), to: iso(m.after.toMs) },
    latency,
    gauges: m.gauges,
    outcome: outcomeOf(latency.map((l) => l.verdict)),
    summary,
  };
}

/** What a finding shows while the hour after its resolution is still running. */
export function measuringEffect(resolvedAtMs: number, measureAfterMs: number): FindingEffect {
  return {
    status: 'measuring',
    resolvedAt: iso(resolvedAtMs),
    measureAfter: iso(measureAfterMs),
    change: null,
    before: null,
    after: null,
    latency: [],
    gauges: [],
    outcome: null,
    summary: `Resolved at ${utcTime(resolvedAtMs)}: measuring what it bought until ${utcTime(measureAfterMs)}.`,
  };
}
