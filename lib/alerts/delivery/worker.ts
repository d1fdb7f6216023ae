import type { Sql } from '../../db/sql';
import { readDeliverableChannels, type DeliverableChannel } from '../channels/channel-store';
import type { SecretBox } from '../channels/secret-box';
import { readAlertmanagerState } from '../store/alertmanager-state';
import { claimDeliveries, markAttemptFailed, markDelivered, type ClaimedDelivery } from '../store/deliveries';
import { PUBLIC_TARGETS_ONLY, type TargetPolicy } from '../channels/target-policy';
import { DEFAULT_BACKOFF, isPermanentStatus, nextAttemptAt, type BackoffPolicy } from './backoff';
import { CouldNotConnectError, createPoster, type Poster } from './post';
import { buildRequests, redact } from './send';

export interface DeliveryWorkerOptions {
  box: SecretBox;
  publicUrl: string;
  now?: () => Date;
  /** How often the outbox is looked at when nobody wakes the worker. */
  pollMs?: number;
  /** One HTTP request's limit; a receiver slower than this counts as failed. */
  timeoutMs?: number;
  /** Attempts in flight per webhook or Slack channel (an Alertmanager channel sends one sync at a time). */
  concurrency?: number;
  backoff?: BackoffPolicy;
  random?: () => number;
  /** Alertmanager re-send period, and how long resolved alerts keep being sent (Prometheus: 1 min, 15 min). */
  resendMs?: number;
  resolvedRetentionMs?: number;
  /** Where channels may send (the server passes INFERWATCH_ALERT_ALLOW_PRIVATE's and _ALLOWED_NETWORKS'); default: public addresses only. */
  targets?: TargetPolicy;
  /** How a request is sent; default: node's http/https under `targets`. */
  post?: Poster;
  onError?: (err: unknown) => void;
}

class HttpStatusError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

/**
 * Sends the outbox: per channel a lane of at most `concurrency` attempts, claimed with a lease, so a receiver
 * that hangs or is down holds only its own lane — never evaluation, never other channels. Every outcome is
 * written back to the row (the delivery log); a failed attempt is due again after an exponential, jittered wait.
 */
export class DeliveryWorker {
  private readonly lanes = new Map<number, Set<Promise<void>>>();
  private readonly aborts = new Set<AbortController>();
  private timer: NodeJS.Timeout | null = null;
  private polling: Promise<void> | null = null;
  private pollAgain = false;
  private stopped = false;
  private readonly now: () => Date;
  private readonly post: Poster;

  constructor(
    private readonly sql: Sql,
    private readonly options: DeliveryWorkerOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.post = options.post ?? createPoster(options.targets ?? PUBLIC_TARGETS_ONLY);
  }

  private get timeoutMs() {
    return this.options.timeoutMs ?? 10_000;
  }

  start(): void {
    this.timer = setInterval(() => this.wake(), this.options.pollMs ?? 1_000);
    this.timer.unref();
    this.wake();
  }

  /** Looks at the outbox now (after a cycle queued something), without waiting for the attempts it starts. */
  wake(): void {
    if (this.stopped) return;
    void this.poll().catch((err) => this.options.onError?.(err));
  }

  /** Claims what is due on every channel and starts sending it; resolves once claimed, not once sent. */
  poll(): Promise<void> {
    if (this.polling) {
      this.pollAgain = true;
      return this.polling;
    }
    this.polling = (async () => {
      do {
        this.pollAgain = false;
        await this.claimAll();
      } while (this.pollAgain && !this.stopped);
    })().finally(() => {
      this.polling = null;
    });
    return this.polling;
  }

  /** Waits for every attempt in flight. */
  async drain(): Promise<void> {
    while (true) {
      const all: Promise<unknown>[] = [...this.lanes.values()].flatMap((lane) => [...lane]);
      if (this.polling) all.push(this.polling.catch(() => {}));
      if (all.length === 0) return;
      await Promise.all(all);
    }
  }

  /** One poll and every attempt it started, finished: what tests step through with their own clock. */
  async runOnce(): Promise<void> {
    await this.poll();
    await this.drain();
  }

  /** Stops polling and aborts what is in flight; aborted attempts are due again at once, after a restart. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.polling?.catch(() => {});
    for (const controller of this.aborts) controller.abort(new Error('shutting down'));
    await this.drain();
  }

  inFlight(channelId: number): number {
    return this.lanes.get(channelId)?.size ?? 0;
  }

  private async claimAll(): Promise<void> {
    if (this.stopped) return;
    const channels = await readDeliverableChannels(this.sql, this.options.box);
    const leaseMs = Math.max(60_000, this.timeoutMs * 4);
    for (const channel of channels) {
      const width = channel.kind === 'alertmanager' ? 1 : (this.options.concurrency ?? 2);
      const free = width - this.inFlight(channel.id);
      if (free <= 0 || this.stopped) continue;
      const claimed = await claimDeliveries(this.sql, channel.id, free, this.now(), leaseMs);
      for (const delivery of claimed) this.track(channel.id, this.attempt(channel, delivery));
    }
  }

  private track(channelId: number, work: Promise<void>): void {
    let lane = this.lanes.get(channelId);
    if (!lane) this.lanes.set(channelId, (lane = new Set()));
    const settled = work
      .catch((err) => this.options.onError?.(err))
      .finally(() => {
        lane.delete(settled);
        // A freed slot may have work waiting behind it.
        if (!this.stopped) this.wake();
      });
    lane.add(settled);
  }

  private async attempt(channel: DeliverableChannel, delivery: ClaimedDelivery): Promise<void> {
    const controller = new AbortController();
    this.aborts.add(controller);
    let statusCode: number | null = null;
    try {
      const nowMs = this.now().getTime();
      const state =
        channel.kind === 'alertmanager'
          ? await readAlertmanagerState(this.sql, channel, {
              nowMs,
              resendMs: this.options.resendMs ?? 60_000,
              resolvedRetentionMs: this.options.resolvedRetentionMs ?? 15 * 60_000,
              publicUrl: this.options.publicUrl,
            })
          : undefined;
      for (const request of buildRequests(channel, delivery, nowMs, state)) {
        // Redirects are not followed: a 3xx counts as a failure like any other non-2xx.
        const response = await this.post(request, AbortSignal.any([controller.signal, AbortSignal.timeout(this.timeoutMs)]));
        statusCode = response.status;
        if (response.status < 200 || response.status > 299) throw new HttpStatusError(response.status);
      }
      await markDelivered(this.sql, delivery, statusCode ?? 204, this.now());
    } catch (err) {
      const now = this.now();
      const shuttingDown = controller.signal.aborted;
      const permanent = err instanceof HttpStatusError && isPermanentStatus(err.status);
      const retryAtMs = shuttingDown
        ? now.getTime()
        : permanent
          ? null
          : nextAttemptAt(delivery, now.getTime(), this.options.backoff ?? DEFAULT_BACKOFF, this.options.random ?? Math.random);
      const error = redact(describeError(err), channel.secret);
      // An attempt cut short by our own shutdown is not the receiver's failure.
      const failure = { error, statusCode, retryAt: retryAtMs === null ? null : new Date(retryAtMs), counted: !shuttingDown };
      await markAttemptFailed(this.sql, delivery, failure, now);
      if (retryAtMs === null) console.warn(`alerts: delivery ${delivery.id} to channel ${channel.name} failed for good: ${error}`);
    } finally {
      this.aborts.delete(controller);
    }
  }
}

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err instanceof CouldNotConnectError) return err.message;
  const cause = (err as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? `: ${(cause as NodeJS.ErrnoException).code ?? cause.message}` : '';
  return `${err.name === 'TimeoutError' ? 'timed out' : err.message}${detail}`;
}
