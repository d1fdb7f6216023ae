import type { Database } from '../db/open';
import type { AlertRuleInput } from '../protocol/alerts';
import { DAY_MS, HOUR_MS } from '../protocol/time';
import { readEnabledAlertmanagerIds } from './channels/channel-store';
import type { SecretBox } from './channels/secret-box';
import { DEFAULT_ALERT_RULES } from './default-rules';
import { DeliveryWorker, type DeliveryWorkerOptions } from './delivery/worker';
import { AlertEngine, type AlertCycleResult } from './engine';
import type { LatencyExplainer } from './explain';
import { processIngestFeed, type IngestFeed } from './ingest-feed';
import { pruneResolvedAlerts } from './store/active-alerts';
import { hasAlertmanagerState } from './store/alertmanager-state';
import { enqueueSync, pruneDeliveries } from './store/deliveries';
import { ensureDefaultRules } from './store/rules';

export interface AlertingOptions {
  publicUrl: string;
  box: SecretBox;
  /** Full cycles: every rule over every host and region. */
  intervalMs?: number;
  /** A host just ingested is evaluated this soon after (its ids gathered meanwhile go in one targeted cycle). */
  ingestDelayMs?: number;
  /** Alertmanager's re-send period, and how long resolved alerts keep being sent. */
  resendMs?: number;
  resolvedRetentionMs?: number;
  /** Resolved occurrences, and delivered or failed notifications, older than these are deleted. */
  historyDays?: number;
  deliveryLogDays?: number;
  now?: () => Date;
  /** The delivery worker's clock, if not `now` (Alertmanager compares endsAt with its own clock). */
  deliveryNow?: () => Date;
  explainer?: LatencyExplainer | null;
  worker?: Partial<Omit<DeliveryWorkerOptions, 'box' | 'publicUrl'>>;
  defaults?: readonly AlertRuleInput[];
  /** Where ingested host ids come from; null: none (only full cycles). */
  ingestFeed?: IngestFeed | null;
  onCycle?: (result: AlertCycleResult) => void;
  onError?: (err: unknown) => void;
}

export interface Alerting {
  engine: AlertEngine;
  worker: DeliveryWorker;
  /** A full cycle now; resolves when it is written. */
  runOnce(): Promise<AlertCycleResult>;
  /** Evaluates these hosts soon (what the ingest feed calls). */
  noteIngested(hostIds: readonly number[]): void;
  /** Queues the periodic Alertmanager re-send now. */
  resend(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The alert engine's timers: a full cycle every 15 s, a targeted one within a second of a host's ingest, the
 * Alertmanager re-send every minute, history pruning hourly, and the delivery worker. None waits on another.
 */
export async function startAlerting(db: Pick<Database, 'sql'>, options: AlertingOptions): Promise<Alerting> {
  const now = options.now ?? (() => new Date());
  const onError = options.onError ?? ((err) => console.error('alerts:', err));
  const resendMs = options.resendMs ?? 60_000;
  const resolvedRetentionMs = options.resolvedRetentionMs ?? 15 * 60_000;
  await ensureDefaultRules(db.sql, options.defaults ?? DEFAULT_ALERT_RULES);

  const worker = new DeliveryWorker(db.sql, {
    box: options.box,
    publicUrl: options.publicUrl,
    now: options.deliveryNow ?? now,
    resendMs,
    resolvedRetentionMs,
    onError,
    ...options.worker,
  });
  const engine = new AlertEngine(db, { publicUrl: options.publicUrl, explainer: options.explainer, onQueued: () => worker.wake() });
  const inFlight = new Set<Promise<unknown>>();
  let stopped = false;
  const track = <T>(work: Promise<T>): Promise<T> => {
    const settled = work.catch(() => {}).finally(() => inFlight.delete(settled));
    inFlight.add(settled);
    return work;
  };

  const full = () => track(engine.runCycle(now())).then((result) => (options.onCycle?.(result), result));

  const ingested = new Set<number>();
  let ingestTimer: NodeJS.Timeout | null = null;
  const noteIngested = (hostIds: readonly number[]) => {
    if (stopped) return;
    for (const id of hostIds) ingested.add(id);
    ingestTimer ??= setTimeout(() => {
      ingestTimer = null;
      const ids = [...ingested];
      ingested.clear();
      void track(engine.runCycle(now(), ids))
        .then((result) => options.onCycle?.(result))
        .catch(onError);
    }, options.ingestDelayMs ?? 1_000);
  };
  const unsubscribe = (options.ingestFeed === undefined ? processIngestFeed() : options.ingestFeed)?.subscribe(noteIngested);

  const resend = async () => {
    const at = (options.deliveryNow ?? now)();
    if (!(await hasAlertmanagerState(db.sql, at.getTime(), resolvedRetentionMs))) return;
    await enqueueSync(db.sql, await readEnabledAlertmanagerIds(db.sql), at);
    worker.wake();
  };

  const housekeeping = async () => {
    const at = now().getTime();
    await pruneResolvedAlerts(db.sql, new Date(at - (options.historyDays ?? 90) * DAY_MS));
    await pruneDeliveries(db.sql, new Date(at - (options.deliveryLogDays ?? 30) * DAY_MS));
  };

  const timers = [
    setInterval(() => !stopped && void full().catch(onError), options.intervalMs ?? 15_000),
    setInterval(() => !stopped && void track(resend()).catch(onError), resendMs),
    setInterval(() => !stopped && void track(housekeeping()).catch(onError), HOUR_MS),
  ];
  for (const timer of timers) timer.unref();
  worker.start();
  void full().catch(onError);

  return {
    engine,
    worker,
    runOnce: full,
    noteIngested,
    resend: () => track(resend()),
    async stop() {
      stopped = true;
      unsubscribe?.();
      for (const timer of timers) clearInterval(timer);
      if (ingestTimer) clearTimeout(ingestTimer);
      await Promise.all(inFlight);
      await worker.stop();
    },
  };
}
