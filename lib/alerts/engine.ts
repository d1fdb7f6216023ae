import { holdTransactionLock } from '../db/locks';
import type { Database } from '../db/open';
import type { Sql } from '../db/sql';
import type { AlertRule } from '../protocol/alerts';
import { readWatermarks } from '../series/rollup';
import { readDeliverableChannels } from './channels/channel-store';
import { dashboardUrl, describeObservation, type Enrichment } from './describe';
import { evaluateAlerts, rulesFor, type Observation } from './evaluate';
import type { LatencyExplainer } from './explain';
import { seriesRequestKey, type AlertInputs } from './inputs';
import { planNotifications } from './notify-plan';
import { planAlertChanges, type ActiveAlert, type AlertChanges } from './plan';
import { readBaselines, type BaselineRequest } from './read/baselines';
import { readHostsHeard } from './read/heard';
import { readHosts } from './read/hosts';
import { readLatencyBurn, type BurnRequest } from './read/latency-burn';
import { readLatencyHistograms } from './read/latency-histograms';
import { readOpenFindings } from './read/open-findings';
import { readSeriesWindows, type SeriesRequest } from './read/series-windows';
import { readPerCpuSteal } from '../series/per-cpu-steal';
import { markNotified, readActiveAlerts, readUnnotifiedAlerts, writeAlertChanges } from './store/active-alerts';
import { enqueueEvents, enqueueSync, readChannelsNotifiedOfFiring } from './store/deliveries';
import { readEnabledRules } from './store/rules';
import { readSilenceWindows } from './store/silences';

const STEAL_SERIES = new Set(['cpu_steal', 'cpu_steal_per_cpu']);
const MAX_EXPLANATIONS_PER_CYCLE = 5;

export interface AlertEngineOptions {
  /** Base of the dashboard links in notifications (generatorURL). */
  publicUrl: string;
  /** How long a 24-hour median stays cached: it moves slowly, and its query reads a day of hourly rows. */
  baselineRefreshMs?: number;
  explainer?: LatencyExplainer | null;
  /** Told after a cycle queued notifications, so the delivery worker need not wait for its next poll. */
  onQueued?: () => void;
}

export interface AlertCycleResult {
  targeted: boolean;
  hosts: number;
  rules: number;
  observations: number;
  transitions: Record<'pending' | 'firing' | 'resolved' | 'discarded', number>;
  notifications: number;
  readMs: number;
  evaluateMs: number;
  writeMs: number;
}

interface Requests {
  series: SeriesRequest[];
  baselines: BaselineRequest[];
  heard: boolean;
  burn: BurnRequest[];
  quantileWindows: number[];
  /** Every open finding, whatever its severity: an alert raised at minSeverity holds while its finding stays open. */
  findings: boolean;
}

function requestsOf(rules: readonly AlertRule[]): Requests {
  const requests: Requests = { series: [], baselines: [], heard: false, burn: [], quantileWindows: [], findings: false };
  for (const { spec } of rules) {
    const m = spec.metric;
    if (m.kind === 'series') {
      requests.series.push({ series: m.series, windowMs: spec.windowMs });
      if (spec.relative) requests.baselines.push({ series: m.series, baselineMs: spec.relative.baselineMs });
    } else if (m.kind === 'host-silence') requests.heard = true;
    else if (m.kind === 'latency-burn') requests.burn.push({ latencyMs: m.latencyMs, windowMs: spec.windowMs, shortWindowMs: m.shortWindowMs });
    else if (m.kind === 'latency-quantile') requests.quantileWindows.push(spec.windowMs);
    else requests.findings = true;
  }
  return requests;
}

class BaselineCache {
  private readonly entries = new Map<string, { atMs: number; values: Map<string, number> }>();
  constructor(private readonly refreshMs: number) {}

  async get(sql: Sql, requests: readonly BaselineRequest[], now: Date): Promise<Map<string, Map<string, number>>> {
    const stale = requests.filter((r) => {
      const entry = this.entries.get(seriesRequestKey(r.series, r.baselineMs));
      return !entry || Math.abs(now.getTime() - entry.atMs) >= this.refreshMs;
    });
    if (stale.length > 0) {
      const fresh = await readBaselines(sql, stale, now);
      for (const [key, values] of fresh) this.entries.set(key, { atMs: now.getTime(), values });
    }
    return new Map(requests.map((r) => {
      const key = seriesRequestKey(r.series, r.baselineMs);
      return [key, this.entries.get(key)?.values ?? new Map()];
    }));
  }
}

/**
 * One alert cycle reads every input in bulk (a query per kind of input, never per host), evaluates the rules
 * (pure), then in one transaction steps the stored occurrences and queues the notifications they owe, so a
 * notification exists exactly when its transition does. Cycles of one engine never overlap.
 */
export class AlertEngine {
  private readonly sql: Sql;
  private readonly baselines: BaselineCache;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    db: Pick<Database, 'sql'>,
    private readonly options: AlertEngineOptions,
  ) {
    this.sql = db.sql;
    this.baselines = new BaselineCache(options.baselineRefreshMs ?? 5 * 60_000);
  }

  /** Every rule over every host and region; with `hostIds`, the host rules over just those hosts. */
  runCycle(now: Date, hostIds?: readonly number[]): Promise<AlertCycleResult> {
    const run = this.queue.then(() => this.cycle(now, hostIds));
    this.queue = run.catch(() => {});
    return run;
  }

  private async cycle(now: Date, hostIds?: readonly number[]): Promise<AlertCycleResult> {
    const started = performance.now();
    const targeted = hostIds !== undefined;
    const enabled = await readEnabledRules(this.sql);
    const rules = rulesFor(enabled, targeted);
    const inputs = await this.readInputs(rules, now, hostIds);
    const read = performance.now();

    const preview = await readActiveAlerts(this.sql, hostIds);
    const previewKeys = new Set(preview.map((a) => `${a.ruleId}\u0000${a.fingerprint}`));
    const evaluation = evaluateAlerts(rules, inputs, (ruleId, fingerprint) => previewKeys.has(`${ruleId}\u0000${fingerprint}`));
    const ruleMap = new Map(enabled.map((r) => [r.id, r]));
    const enrichment = await this.enrich(ruleMap, evaluation.observations, preview, now);
    const annotate = (o: Observation) => this.annotations(ruleMap.get(o.ruleId)!, o, enrichment.get(`${o.ruleId}\u0000${o.fingerprint}`));
    const evaluated = performance.now();

    const written = await this.sql.transaction(async (tx) => {
      // Serializes the write phase of alert cycles across app processes sharing one database.
      await holdTransactionLock(tx, 'alerts');
      const active = await readActiveAlerts(tx, hostIds);
      const changes = planAlertChanges({
        rules: ruleMap,
        active,
        observations: evaluation.observations,
        coverage: evaluation,
        nowMs: now.getTime(),
        annotate,
        endOrphans: !targeted,
      });
      await writeAlertChanges(tx, changes, now);
      const notifications = await this.queueNotifications(tx, changes, now, hostIds);
      return { changes, notifications };
    });
    const done = performance.now();
    if (written.notifications > 0) this.options.onQueued?.();

    const transitions = { pending: 0, firing: 0, resolved: 0, discarded: 0 };
    for (const t of written.changes.transitions) transitions[t.transition]++;
    return {
      targeted,
      hosts: inputs.hosts.size,
      rules: rules.length,
      observations: evaluation.observations.length,
      transitions,
      notifications: written.notifications,
      readMs: read - started,
      evaluateMs: evaluated - read,
      writeMs: done - evaluated,
    };
  }

  private async readInputs(rules: readonly AlertRule[], now: Date, hostIds?: readonly number[]): Promise<AlertInputs> {
    const requests = requestsOf(rules);
    const needsMarks = requests.series.length > 0 || requests.burn.length > 0 || requests.quantileWindows.length > 0;
    const marks = needsMarks ? await readWatermarks(this.sql) : {};
    const [hosts, series, baselines, heard, latencyBurn, latencyHistograms, findings] = await Promise.all([
      readHosts(this.sql, hostIds),
      readSeriesWindows(this.sql, requests.series, { to: now, rollupMark: marks['1m'] ?? null, hostIds }),
      this.baselines.get(this.sql, requests.baselines, now),
      requests.heard ? readHostsHeard(this.sql, hostIds) : new Map(),
      readLatencyBurn(this.sql, requests.burn, { to: now, rollupMark: marks['1m'] ?? null }),
      readLatencyHistograms(this.sql, requests.quantileWindows, { to: now, rollupMarks: marks }),
      requests.findings && !hostIds ? readOpenFindings(this.sql) : undefined,
    ]);
    return {
      nowMs: now.getTime(),
      hosts,
      series,
      baselines,
      heard,
      latencyBurn,
      latencyHistograms,
      findings,
      targetHosts: hostIds ? new Set(hostIds) : undefined,
    };
  }

  /** The vCPUs a steal alert names, and the likely cause of a latency alert about to fire: read only for those. */
  private async enrich(rules: ReadonlyMap<string, AlertRule>, observations: readonly Observation[], active: readonly ActiveAlert[], now: Date) {
    const out = new Map<string, Enrichment>();
    const activeKeys = new Map(active.map((a) => [`${a.ruleId}\u0000${a.fingerprint}`, a]));
    const stealByWindow = new Map<number, Observation[]>();
    const explain: { o: Observation; rule: AlertRule }[] = [];
    for (const o of observations) {
      const rule = rules.get(o.ruleId)!;
      const current = activeKeys.get(`${o.ruleId}\u0000${o.fingerprint}`);
      if (!o.judgement.breaching && !current) continue;
      const m = rule.spec.metric;
      if (m.kind === 'series' && STEAL_SERIES.has(m.series) && o.hostId !== null) {
        const list = stealByWindow.get(rule.spec.windowMs) ?? [];
        list.push(o);
        stealByWindow.set(rule.spec.windowMs, list);
      } else if ((m.kind === 'latency-burn' || m.kind === 'latency-quantile') && o.judgement.breaching && current?.state !== 'firing') {
        explain.push({ o, rule });
      }
    }
    for (const [windowMs, list] of stealByWindow) {
      const cpus = await readPerCpuSteal(this.sql, [...new Set(list.map((o) => o.hostId!))], new Date(now.getTime() - windowMs), now);
      for (const o of list) out.set(`${o.ruleId}\u0000${o.fingerprint}`, { topStolenCpus: cpus.get(o.hostId!) ?? [] });
    }
    const explainer = this.options.explainer;
    if (explainer) {
      // An explanation takes several queries: a cycle in which many latency alerts fire at once explains a few.
      for (const { o, rule } of explain.slice(0, MAX_EXPLANATIONS_PER_CYCLE)) {
        if (o.detail.kind !== 'latency-burn' && o.detail.kind !== 'latency-quantile') continue;
        const m = rule.spec.metric;
        const slowMs = m.kind === 'latency-burn' ? m.latencyMs : rule.spec.threshold;
        const from = new Date(now.getTime() - (m.kind === 'latency-burn' ? m.shortWindowMs : rule.spec.windowMs));
        // An explanation is a bonus: a failing explainer must not stop the alert.
        const cause = await explainer.explain({ region: o.detail.region, service: o.detail.service, slowMs, from, to: now }).catch(() => null);
        if (cause) out.set(`${o.ruleId}\u0000${o.fingerprint}`, { likelyCause: cause });
      }
    }
    return out;
  }

  private annotations(rule: AlertRule, o: Observation, enrichment: Enrichment | undefined): Record<string, string> {
    return {
      ...describeObservation(rule, o, enrichment),
      runbook_url: rule.runbookUrl ?? `${this.options.publicUrl.replace(/\/+$/, '')}/api/v1/alerts/rules/${rule.id}`,
    };
  }

  /** Queues what the cycle's occurrences owe their channels, in the cycle's transaction. */
  private async queueNotifications(tx: Sql, changes: AlertChanges, now: Date, hostIds?: readonly number[]): Promise<number> {
    const resolvedIds = changes.resolves.map((r) => r.id);
    const rows = await readUnnotifiedAlerts(tx, resolvedIds, hostIds);
    const syncNeeded = changes.transitions.some((t) => t.transition === 'firing' || t.transition === 'resolved');
    if (rows.length === 0 && !syncNeeded) return 0;
    // One connection: the transaction's statements go one after another.
    const channels = await readDeliverableChannels(tx, null);
    const silences = await readSilenceWindows(tx, now);
    const firedTo = await readChannelsNotifiedOfFiring(tx, resolvedIds);
    const alerts = rows.map((alert) => ({ ...alert, url: dashboardUrl(this.options.publicUrl, { hostId: alert.hostId, region: alert.region, service: alert.labels.service }) }));
    const plan = planNotifications(alerts, channels, silences, now.getTime(), firedTo);
    await enqueueEvents(tx, plan.events, now);
    await markNotified(tx, plan.notified);
    const alertmanagers = channels.filter((c) => c.kind === 'alertmanager').map((c) => c.id);
    const sync = syncNeeded || plan.notified.length > 0 ? alertmanagers : [];
    await enqueueSync(tx, sync, now);
    return plan.events.length + sync.length;
  }
}
