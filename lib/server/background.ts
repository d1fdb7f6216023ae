import type { SecretBox } from '../alerts/channels/secret-box';
import type { LatencyExplainer } from '../alerts/explain';
import { createIngestFeed, processIngestFeed, type IngestFeed } from '../alerts/ingest-feed';
import { startAlerting } from '../alerts';
import type { Alerting, AlertingOptions } from '../alerts/scheduler';
import { forwardIngestFeed, listenToIngestFeed, type IngestForwarder } from '../alerts/shared-ingest-feed';
import { electLeader, type LeadershipOptions } from '../db/leader';
import type { ChannelListener } from '../db/listen';
import type { Database } from '../db/open';
import type { EffectOptions } from '../findings/effects/measure-effects';
import { startFindingsScheduler, type FindingsScheduler, type FindingsSchedulerOptions } from '../findings/engine/scheduler';
import { startSeriesMaintenance } from '../series';
import type { SeriesMaintenance, SeriesMaintenanceOptions } from '../series/maintenance';
import { processMetrics } from './process-metrics';

export interface BackgroundJobsOptions {
  /** The dashboard's address in notifications' links. */
  publicUrl: string;
  /** Opens alert channels' secrets: every replica needs the same key (INFERWATCH_SECRET_KEY). */
  box: SecretBox;
  explainer?: LatencyExplainer | null;
  /** How what a fix bought is measured (INFERWATCH_FIX_WINDOW_S). */
  effects?: EffectOptions;
  leadership?: Pick<LeadershipOptions, 'retryMs' | 'checkTimeoutMs'>;
  maintenance?: SeriesMaintenanceOptions;
  findings?: Omit<FindingsSchedulerOptions, 'engine' | 'effects'>;
  alerting?: Omit<AlertingOptions, 'publicUrl' | 'box' | 'explainer' | 'ingestFeed'>;
  /** How often this replica tells the leader which hosts just reported to it. */
  ingestForwardMs?: number;
  onLeadershipChange?: (leading: boolean) => void;
  onError?: (err: unknown) => void;
}

export interface BackgroundJobs {
  isLeader(): boolean;
  /** Stops the jobs (waiting for what they are writing) and, on the leader, then hands leadership on. */
  stop(): Promise<void>;
}

/** One term of this process as leader: the jobs it started, which end with it. */
interface Term {
  maintenance: SeriesMaintenance;
  findings: FindingsScheduler;
  alerting: Promise<Alerting | null>;
  listener: ChannelListener | null;
  ended: boolean;
}

/**
 * The work that must run once however many replicas share the database — rollups and retention, the findings cycle
 * with fix-effect measurement, alert evaluation and the notification outbox — runs on the one leader (lib/db/leader),
 * started when this process is elected and stopped when it is deposed. Every term starts new engines: what an engine
 * remembers of its own writes says nothing about what another leader wrote meanwhile. Every replica forwards the
 * hosts it ingested, so the leader evaluates them within a second whichever replica they reported to.
 */
export function startBackgroundJobs(db: Database, options: BackgroundJobsOptions): BackgroundJobs {
  const onError = options.onError ?? ((err: unknown) => console.error('background jobs:', err));
  const retryMs = options.leadership?.retryMs ?? 2_000;
  const forwarder: IngestForwarder | null =
    db.target.kind === 'server' ? forwardIngestFeed(db.sql, processIngestFeed(), { batchMs: options.ingestForwardMs, onError }) : null;
  let term: Term | null = null;
  let ending: Promise<void> = Promise.resolve();

  // On the embedded database this process's own feed is the whole fleet's, and alerting listens to it by default.
  const listenAsLeader = (): { feed?: IngestFeed; listener: ChannelListener | null } => {
    if (db.target.kind !== 'server') return { listener: null };
    const feed = createIngestFeed();
    return { feed, listener: listenToIngestFeed(db.target.url, feed, { retryMs, onError }) };
  };

  const startAlertingDuring = async (current: Term, ingestFeed: IngestFeed | undefined): Promise<Alerting | null> => {
    // Alerting's start writes the default rules; if the database refuses, try again rather than lead without alerts.
    while (!current.ended) {
      try {
        return await startAlerting(db, { ...options.alerting, publicUrl: options.publicUrl, box: options.box, explainer: options.explainer, ingestFeed });
      } catch (err) {
        onError(err);
        await new Promise((resolve) => setTimeout(resolve, retryMs));
      }
    }
    return null;
  };

  const beginTerm = (): Term => {
    const { feed, listener } = listenAsLeader();
    const current: Term = {
      maintenance: startSeriesMaintenance(db, options.maintenance),
      findings: startFindingsScheduler(db, { ...options.findings, effects: options.effects }),
      alerting: Promise.resolve(null),
      listener,
      ended: false,
    };
    current.alerting = startAlertingDuring(current, feed);
    return current;
  };

  // Each job's stop() clears its timers at once and then waits for what it is writing.
  const endTerm = async (ended: Term) => {
    ended.ended = true;
    await Promise.all([
      ended.maintenance.stop(),
      ended.findings.stop(),
      ended.alerting.then((alerting) => alerting?.stop()),
      ended.listener?.close(),
    ]);
  };

  const leadership = electLeader(db.target, {
    ...options.leadership,
    onElected() {
      processMetrics().leader.set(1);
      options.onLeadershipChange?.(true);
      // A term begins once the last one's writes are done, so no engine of this process overlaps another.
      void ending
        .then(() => {
          if (leadership.isLeader() && !term) term = beginTerm();
        })
        .catch(onError);
    },
    // Its session is gone, so another may lead already: the jobs stop now.
    onDeposed() {
      processMetrics().leader.set(0);
      options.onLeadershipChange?.(false);
      const ended = term;
      term = null;
      if (ended) ending = Promise.all([ending, endTerm(ended).catch(onError)]).then(() => {});
      return ending;
    },
    onError,
  });

  return {
    isLeader: () => leadership.isLeader(),
    async stop() {
      await forwarder?.stop();
      await leadership.stop();
      await ending;
    },
  };
}
