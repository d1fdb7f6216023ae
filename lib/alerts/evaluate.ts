import type { AlertMetric, AlertRule } from '../protocol/alerts';
import { SEVERITY_RANK } from '../protocol/findings';
import { quantileOfWire } from '../sketch';
import { METRIC_SOURCES } from '../series/metrics';
import { alertLabels, fingerprintOf, keyLabelOf } from './instance-labels';
import { burnRequestKey, instanceKey, seriesRequestKey, type AlertInputs, type HostInfo, type OpenFinding } from './inputs';
import { selectsHost, selectsLatency } from './selector';
import type { Judgement } from './state-machine';
import { burnRate, effectiveThresholds, judge, type EffectiveThresholds } from './thresholds';

type MetricOf<K extends AlertMetric['kind']> = Extract<AlertMetric, { kind: K }>;

export type ObservationDetail =
  | { kind: 'series'; host: HostInfo; key: string | null; keyLabel: string | null }
  | { kind: 'latency-burn'; region: string; service: string; longBurn: number; shortBurn: number; longTotal: number; shortTotal: number }
  | { kind: 'latency-quantile'; region: string; service: string; count: number }
  | { kind: 'host-silence'; host: HostInfo; silentMs: number; intervalMs: number }
  | { kind: 'finding'; finding: OpenFinding | null; host: HostInfo | null };

/** One instance of one rule as this cycle saw it. */
export interface Observation {
  ruleId: string;
  fingerprint: string;
  hostId: number | null;
  region: string | null;
  labels: Record<string, string>;
  /** null: the instance is gone (its device or finding no longer there), which clears it. */
  value: number | null;
  thresholds: EffectiveThresholds;
  judgement: Judgement;
  detail: ObservationDetail;
}

/** Which stored alerts this cycle was able to judge: only those may resolve for want of an observation. */
export interface Coverage {
  covers(alert: { ruleId: string; hostId: number | null; region: string | null }): boolean;
}

export interface Evaluation extends Coverage {
  observations: Observation[];
}

/** Series windows up to this long are judged again right after a host's ingest; longer ones move little per report. */
export const TARGETED_MAX_WINDOW_MS = 2 * 60_000;

/**
 * Rules a cycle judges: every enabled one on a full cycle; on a targeted one (the hosts just ingested), the series
 * rules with short windows — what a report can change at once. A host that just reported is not silent, and its
 * 10-minute averages wait for the next full cycle at no loss.
 */
export function rulesFor(rules: readonly AlertRule[], targeted: boolean): AlertRule[] {
  return rules.filter((r) => r.enabled && (!targeted || (r.spec.metric.kind === 'series' && r.spec.windowMs <= TARGETED_MAX_WINDOW_MS)));
}

/**
 * Every rule over every instance it has inputs for. Pure: the engine around it reads and writes. An instance at
 * or below its clear threshold that has no unresolved occurrence (`isActive`) changes nothing and is left out:
 * on 10,000 hosts nearly all are, and a stored occurrence without an observation steps as cleared anyway.
 */
export function evaluateAlerts(rules: readonly AlertRule[], inputs: AlertInputs, isActive: (ruleId: string, fingerprint: string) => boolean = () => true): Evaluation {
  const observations: Observation[] = [];
  const coveredHosts = new Map<string, ReadonlySet<number>>();
  const coveredAll = new Set<string>();
  const targets = inputs.targetHosts;
  const hostTargeted = (hostId: number) => !targets || targets.has(hostId);

  for (const rule of rulesFor(rules, targets !== undefined)) {
    const metric = rule.spec.metric;
    switch (metric.kind) {
      case 'series':
        series(rule, metric);
        break;
      case 'host-silence':
        silence(rule, metric);
        break;
      case 'latency-burn':
        burn(rule, metric);
        break;
      case 'latency-quantile':
        quantile(rule, metric);
        break;
      case 'finding':
        finding(rule, metric);
        break;
    }
  }

  return {
    observations,
    covers: ({ ruleId, hostId }) => coveredAll.has(ruleId) || (hostId !== null && (coveredHosts.get(ruleId)?.has(hostId) ?? false)),
  };

  function observe(
    rule: AlertRule,
    o: Omit<Observation, 'ruleId' | 'labels' | 'fingerprint' | 'judgement'>,
    identity: Record<string, string>,
    context: Record<string, string>,
    judgement: Judgement = judge(o.value, o.thresholds),
  ) {
    const fingerprint = fingerprintOf(identity);
    if (judgement.clear && !isActive(rule.id, fingerprint)) return;
    observations.push({ ...o, ruleId: rule.id, fingerprint, labels: alertLabels(rule, identity, context), judgement });
  }

  /** The cheap test first: most host instances are quiet and have nothing stored, and then nothing is built. */
  function quiet(rule: AlertRule, value: number | null, thresholds: { clearThreshold: number }, identity: () => Record<string, string>): boolean {
    return (value === null || value <= thresholds.clearThreshold) && !isActive(rule.id, fingerprintOf(identity()));
  }

  function hostContext(host: HostInfo) {
    return { host: host.hostname, region: host.region };
  }

  function series(rule: AlertRule, metric: MetricOf<'series'>) {
    const window = inputs.series.get(seriesRequestKey(metric.series, rule.spec.windowMs));
    if (!window) return;
    const source = METRIC_SOURCES[metric.series];
    const keyLabel = keyLabelOf(source);
    const baselines = rule.spec.relative ? inputs.baselines.get(seriesRequestKey(metric.series, rule.spec.relative.baselineMs)) : undefined;
    const covered = new Set<number>();
    for (const hostId of window.coveredHosts) {
      const host = inputs.hosts.get(hostId);
      if (host && hostTargeted(hostId) && selectsHost(rule.spec.selector, host)) covered.add(hostId);
    }
    coveredHosts.set(rule.id, covered);
    for (const row of window.rows) {
      if (!covered.has(row.hostId)) continue;
      const host = inputs.hosts.get(row.hostId)!;
      const value = metric.aggregation === 'max' ? row.max : row.avg;
      if (value === null) continue;
      const baseline = baselines?.get(instanceKey(row.hostId, row.key)) ?? null;
      const thresholds = effectiveThresholds(rule.spec, baseline);
      const identityOf = () => (keyLabel && row.key !== null ? { host_id: String(host.id), [keyLabel]: row.key } : { host_id: String(host.id) });
      if (quiet(rule, value, thresholds, identityOf)) continue;
      observe(
        rule,
        {
          hostId: host.id,
          region: host.region,
          value,
          thresholds,
          detail: { kind: 'series', host, key: row.key, keyLabel },
        },
        identityOf(),
        hostContext(host),
      );
    }
  }

  function silence(rule: AlertRule, metric: MetricOf<'host-silence'>) {
    const covered = new Set<number>();
    coveredHosts.set(rule.id, covered);
    const silenceThresholds = effectiveThresholds(rule.spec, null);
    for (const host of inputs.hosts.values()) {
      if (!hostTargeted(host.id) || !selectsHost(rule.spec.selector, host)) continue;
      const heard = inputs.heard.get(host.id);
      if (!heard || heard.lastHeardMs === null) continue;
      covered.add(host.id);
      const intervalMs = heard.intervalMs ?? metric.defaultIntervalMs;
      const silentMs = Math.max(0, inputs.nowMs - heard.lastHeardMs);
      if (quiet(rule, silentMs / intervalMs, silenceThresholds, () => ({ host_id: String(host.id) }))) continue;
      observe(
        rule,
        {
          hostId: host.id,
          region: host.region,
          value: silentMs / intervalMs,
          thresholds: silenceThresholds,
          detail: { kind: 'host-silence', host, silentMs, intervalMs },
        },
        { host_id: String(host.id) },
        hostContext(host),
      );
    }
  }

  function burn(rule: AlertRule, metric: MetricOf<'latency-burn'>) {
    const rows = inputs.latencyBurn.get(burnRequestKey(metric.latencyMs, rule.spec.windowMs, metric.shortWindowMs));
    if (!rows) return;
    for (const row of rows) {
      if (!selectsLatency(rule.spec.selector, row.region, row.service) || row.shortTotal < metric.minRequests) continue;
      const longBurn = burnRate(row.longTotal, row.longBad, metric.objective);
      const shortBurn = burnRate(row.shortTotal, row.shortBad, metric.objective);
      observe(
        rule,
        {
          hostId: null,
          region: row.region,
          value: Math.min(longBurn, shortBurn),
          thresholds: effectiveThresholds(rule.spec, null),
          detail: { kind: 'latency-burn', region: row.region, service: row.service, longBurn, shortBurn, longTotal: row.longTotal, shortTotal: row.shortTotal },
        },
        { region: row.region, service: row.service },
        {},
      );
    }
  }

  function quantile(rule: AlertRule, metric: MetricOf<'latency-quantile'>) {
    for (const row of inputs.latencyHistograms.get(rule.spec.windowMs) ?? []) {
      if (!selectsLatency(rule.spec.selector, row.region, row.service) || row.wire.count === 0) continue;
      observe(
        rule,
        {
          hostId: null,
          region: row.region,
          value: quantileOfWire(row.wire, metric.quantile),
          thresholds: effectiveThresholds(rule.spec, null),
          detail: { kind: 'latency-quantile', region: row.region, service: row.service, count: row.wire.count },
        },
        { region: row.region, service: row.service },
        {},
      );
    }
  }

  function finding(rule: AlertRule, metric: MetricOf<'finding'>) {
    if (!inputs.findings) return;
    coveredAll.add(rule.id);
    for (const f of inputs.findings) {
      if (metric.findingRuleId && f.ruleId !== metric.findingRuleId) continue;
      const severe = SEVERITY_RANK[f.severity] <= SEVERITY_RANK[metric.minSeverity];
      const host = f.hostId !== null ? (inputs.hosts.get(f.hostId) ?? null) : null;
      if (f.hostId !== null && (!host || !selectsHost(rule.spec.selector, host))) continue;
      if (f.hostId === null && rule.spec.selector.regions && !rule.spec.selector.regions.includes(f.region)) continue;
      const identity: Record<string, string> = { finding: f.ruleId, ...(host ? { host_id: String(host.id) } : { region: f.region }) };
      if (f.subject) identity.subject = f.subject;
      // The alert is about the finding's occurrence: one that eased below minSeverity but is still open holds its
      // alert (neither breaching nor clear), so a severity swinging around the line does not resolve and refire it.
      if (!severe && !isActive(rule.id, fingerprintOf(identity))) continue;
      observe(
        rule,
        {
          hostId: host?.id ?? null,
          region: f.region,
          value: 1,
          thresholds: effectiveThresholds(rule.spec, null),
          detail: { kind: 'finding', finding: f, host },
        },
        identity,
        host ? hostContext(host) : { region: f.region },
        severe ? undefined : { breaching: false, clear: false },
      );
    }
  }
}
