import { enrollResponseSchema, type Report } from '../protocol';
import { DEMO_INTERVAL_MS, DEMO_REGIONS, DEMO_SEED, demoFleet, reportsUntilMs, type DemoHost, type DemoRegion } from './fleet';
import type { DemoPost, PostAnswer } from './http-post';
import { demoInventory } from './inventory';
import { demoReport } from './report';
import { newDemoState, type DemoState, type DemoStateStore, type RegionKeys, type SavedHost } from './state';

export interface DemoTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface DemoRunnerOptions {
  timers: DemoTimers;
  post: DemoPost;
  /** Valid enrollment keys per region: the saved ones while they work, new ones otherwise. */
  ensureKeys(saved: RegionKeys): Promise<Record<DemoRegion, string>>;
  store: DemoStateStore;
  log(message: string): void;
  seed?: string;
  /** How much history a host without any gets on start. */
  backfillMs?: number;
  /** Reports per ingest request: small enough that one batch never holds the embedded database for long. */
  batchSize?: number;
  /** Requests in flight at once, so the demo never crowds out real agents or the dashboard. */
  concurrency?: number;
  /** Unsent reports kept per host while the server is unreachable; older ones are dropped. */
  maxPending?: number;
  /** Every this many reports carries the inventory (the server stores it only when it changed). */
  inventoryEvery?: number;
  /** Told while the backfill is sent: it loads the server's own machine (lib/findings/self-load). */
  selfLoad?: { begin(): () => void };
}

interface HostRun {
  host: DemoHost;
  saved: SavedHost;
  /** The ts of the next backfill report not generated yet, or null when the backfill is done. */
  nextBackfillTs: number | null;
  backfillUntilMs: number;
  pending: Report[];
  sending: boolean;
  pausedUntilMs: number;
  tickTimer?: unknown;
  resumeTimer?: unknown;
  sinceInventory: number;
}

const MIN_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;
const RATE_LIMITED_DEFAULT_MS = 5_000;
const SAVE_DELAY_MS = 5_000;
const KEYS_RETRY_MS = 60_000;

/** A counting semaphore whose waiters are served in order. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];
  constructor(size: number) {
    this.free = size;
  }
  async acquire(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    return () => {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}

/**
 * Runs the demo fleet as agents would: each host enrolls with its region's key, backfills what it missed (up to
 * `backfillMs`), then sends one report per interval on its own timer. Everything goes over HTTP to the server's
 * own ingest and enroll endpoints; failures back off (429 for the host, 503 and no answer for all) and are logged
 * once per kind.
 */
export class DemoRunner {
  private readonly seed: string;
  private readonly backfillMs: number;
  private readonly batchSize: number;
  private readonly maxPending: number;
  private readonly inventoryEvery: number;
  private readonly slots: Slots;
  private readonly logged = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private idleWaiters: (() => void)[] = [];
  private runs: HostRun[] = [];
  private state: DemoState | null = null;
  private keys: Record<DemoRegion, string> | null = null;
  private keysCheckedAtMs = 0;
  /** Set when the server refused a key: ensureKeys runs again (at most once a minute). */
  private keysStale = false;
  private pausedUntilMs = 0;
  private backoffMs = MIN_BACKOFF_MS;
  private saveTimer?: unknown;
  private stopped = false;

  constructor(private readonly options: DemoRunnerOptions) {
    this.seed = options.seed ?? DEMO_SEED;
    this.backfillMs = options.backfillMs ?? 3_600_000;
    this.batchSize = options.batchSize ?? 60;
    this.maxPending = options.maxPending ?? 90;
    this.inventoryEvery = options.inventoryEvery ?? 60;
    this.slots = new Slots(options.concurrency ?? 2);
  }

  get hosts(): readonly DemoHost[] {
    return this.runs.map((run) => run.host);
  }

  /** Loads or creates the state and the keys, then starts every host; resolves before the backfill is sent. */
  async start(): Promise<void> {
    const endSelfLoad = this.options.selfLoad?.begin() ?? (() => {});
    try {
      await this.startHosts();
    } catch (err) {
      endSelfLoad();
      throw err;
    }
    void this.idle().then(endSelfLoad);
  }

  private async startHosts(): Promise<void> {
    const now = this.options.timers.now();
    const loaded = this.options.store.load();
    let state = loaded && loaded.seed === this.seed ? loaded : newDemoState(this.seed, now);
    this.keys = await this.options.ensureKeys(state.keys);
    this.keysCheckedAtMs = now;
    if (DEMO_REGIONS.every((region) => state.keys[region] !== undefined && state.keys[region] !== this.keys![region])) {
      // None of the saved keys is known here: a new database (the server moved to PostgreSQL, or was restored). The
      // demo starts over in it, history included — else its silent host, which never reports again, would be missing.
      state = newDemoState(this.seed, now);
      this.options.log('the demo state belongs to another database; starting the demo fleet over in this one');
    }
    this.state = state;
    state.keys = { ...this.keys };
    this.options.store.save(state);
    if (this.stopped) return;
    this.runs = demoFleet({ seed: this.seed, epochMs: state.epochMs }).map((host) => {
      const saved = (state.hosts[host.hostname] ??= { hostId: null, token: null, nextSeq: 0, lastTs: null });
      return this.newRun(host, saved, now);
    });
    for (const run of this.runs) {
      this.scheduleTick(run);
      this.flush(run);
    }
    this.settle();
  }

  /** Resolves once every host has sent all it has generated (the backfill included). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const { clearTimeout } = this.options.timers;
    for (const run of this.runs) {
      clearTimeout(run.tickTimer);
      clearTimeout(run.resumeTimer);
    }
    clearTimeout(this.saveTimer);
    await Promise.allSettled([...this.inFlight]);
    if (this.state) this.options.store.save(this.state);
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private newRun(host: DemoHost, saved: SavedHost, now: number): HostRun {
    const from = Math.max(saved.lastTs === null ? -Infinity : saved.lastTs + DEMO_INTERVAL_MS, now - this.backfillMs);
    const first = this.gridAtOrAfter(host, from);
    const until = Math.min(now, reportsUntilMs(host));
    return {
      host,
      saved,
      nextBackfillTs: first <= until ? first : null,
      backfillUntilMs: until,
      pending: [],
      sending: false,
      pausedUntilMs: 0,
      sinceInventory: Infinity,
    };
  }

  /** The first of the host's report times (phase + k × interval) at or after `ms`. */
  private gridAtOrAfter(host: DemoHost, ms: number): number {
    return Math.ceil((ms - host.phaseMs) / DEMO_INTERVAL_MS) * DEMO_INTERVAL_MS + host.phaseMs;
  }

  private scheduleTick(run: HostRun): void {
    if (this.stopped) return;
    const now = this.options.timers.now();
    const next = this.gridAtOrAfter(run.host, Math.max(now, (run.saved.lastTs ?? 0) + 1));
    if (next > reportsUntilMs(run.host)) return;
    run.tickTimer = this.options.timers.setTimeout(() => {
      run.tickTimer = undefined;
      this.tick(run, next);
      this.scheduleTick(run);
    }, next - now);
  }

  private tick(run: HostRun, ts: number): void {
    if (this.stopped) return;
    // While the backfill is still being sent, the new report joins its end so seqs stay in time order.
    if (run.nextBackfillTs !== null) run.backfillUntilMs = ts;
    else this.generate(run, ts);
    this.flush(run);
  }

  private generate(run: HostRun, ts: number): void {
    const withInventory = run.sinceInventory >= this.inventoryEvery;
    run.pending.push(demoReport(run.host, ts, run.saved.nextSeq, { inventory: withInventory }));
    run.sinceInventory = withInventory ? 1 : run.sinceInventory + 1;
    run.saved.nextSeq++;
    run.saved.lastTs = ts;
    if (run.pending.length > this.maxPending) {
      run.pending.splice(0, run.pending.length - this.maxPending);
      this.logOnce('backlog-dropped', 'the server has not taken demo reports for a while; dropping the oldest unsent ones');
    }
    this.saveSoon();
  }

  /** Generates backfill reports until a batch is full or the backfill is done. */
  private fillBatch(run: HostRun): void {
    while (run.nextBackfillTs !== null && run.pending.length < this.batchSize) {
      const ts = run.nextBackfillTs;
      this.generate(run, ts);
      const next = ts + DEMO_INTERVAL_MS;
      run.nextBackfillTs = next <= run.backfillUntilMs ? next : null;
    }
  }

  private hasWork(run: HostRun): boolean {
    return run.pending.length > 0 || run.nextBackfillTs !== null;
  }

  private flush(run: HostRun): void {
    if (this.stopped || run.sending || !this.hasWork(run)) return this.settle();
    const now = this.options.timers.now();
    const pausedUntil = Math.max(run.pausedUntilMs, this.pausedUntilMs);
    if (pausedUntil > now) return this.resumeAt(run, pausedUntil - now);
    run.sending = true;
    const sent = this.sendOne(run).finally(() => {
      this.inFlight.delete(sent);
      run.sending = false;
      this.flush(run);
    });
    this.inFlight.add(sent);
  }

  private resumeAt(run: HostRun, delayMs: number): void {
    if (run.resumeTimer !== undefined) return;
    run.resumeTimer = this.options.timers.setTimeout(() => {
      run.resumeTimer = undefined;
      this.flush(run);
    }, delayMs);
  }

  private async sendOne(run: HostRun): Promise<void> {
    const release = await this.slots.acquire();
    try {
      // The server may have gone away while this host waited for a slot.
      if (this.stopped || Math.max(run.pausedUntilMs, this.pausedUntilMs) > this.options.timers.now()) return;
      if (!run.saved.token && !(await this.enroll(run))) return;
      this.fillBatch(run);
      const batch = run.pending.slice(0, this.batchSize);
      if (batch.length === 0) return;
      const body = batch.length === 1 ? batch[0] : { reports: batch };
      const answer = await this.options.post('/api/v1/ingest', body, run.saved.token!, { gzip: true });
      this.handleIngest(run, batch, answer);
    } catch (err) {
      this.unavailable(`demo: ${(err as Error).message}`, 'error');
    } finally {
      release();
    }
  }

  private handleIngest(run: HostRun, batch: readonly Report[], answer: PostAnswer): void {
    const now = this.options.timers.now();
    const sent = new Set(batch.map((r) => r.seq));
    const forgetBatch = () => (run.pending = run.pending.filter((r) => !sent.has(r.seq)));
    if (answer.status === 200) {
      this.backoffMs = MIN_BACKOFF_MS;
      forgetBatch();
      return;
    }
    if (answer.status === 401) {
      run.saved.token = null;
      run.pausedUntilMs = now + MIN_BACKOFF_MS;
      this.logOnce('token-rejected', 'a demo host token was rejected (a new database?); enrolling the host again');
      return;
    }
    if (answer.status === 429) {
      run.pausedUntilMs = now + (answer.retryAfterMs ?? RATE_LIMITED_DEFAULT_MS);
      this.logOnce('rate-limited', 'the server rate-limits demo hosts; they wait as its Retry-After says');
      return;
    }
    if (answer.status === 0 || answer.status >= 500) {
      this.unavailable(answer.error ?? `HTTP ${answer.status}`, `ingest-${answer.status}`);
      return;
    }
    if (answer.status === 409) {
      // The server already holds a report of this host at one of these times under another seq: a copy whose answer
      // was lost and that was renumbered since (a re-enrolled host continues at the server's seq). It is stored.
      forgetBatch();
      return;
    }
    // A report the server refuses is a bug in the generator: sending it again would only be refused again.
    forgetBatch();
    this.logOnce(`refused-${answer.status}`, `the server refused demo reports (HTTP ${answer.status}): ${JSON.stringify(answer.body).slice(0, 500)}`);
  }

  /** No answer, or 5xx: every host waits, twice as long after each failed pause, up to a minute. */
  private unavailable(reason: string, kind: string): void {
    const now = this.options.timers.now();
    this.logOnce(kind, `the server did not take demo reports (${reason}); retrying with backoff`);
    if (now < this.pausedUntilMs) return;
    this.pausedUntilMs = now + this.backoffMs;
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
  }

  /** Trades the region's key for a host token; a re-enrolled host continues at the seq the server names. */
  private async enroll(run: HostRun): Promise<boolean> {
    const keys = await this.currentKeys();
    const answer = await this.options.post('/api/v1/enroll', { hostname: run.host.hostname, machineId: run.host.machineId }, keys[run.host.region], { gzip: false });
    if (answer.status === 200) {
      const enrolled = enrollResponseSchema.parse(answer.body);
      run.saved.hostId = enrolled.hostId;
      run.saved.token = enrolled.token;
      this.continueAt(run, enrolled.nextSeq);
      // A host new to this server (a new database) needs its inventory with its first report.
      run.sinceInventory = Infinity;
      if (run.pending[0]) run.pending[0] = { ...run.pending[0], inventory: demoInventory(run.host) };
      this.saveSoon();
      return true;
    }
    if (answer.status === 401 || answer.status === 403) {
      this.keysStale = true;
      this.unavailable(`enrollment key refused with HTTP ${answer.status}; checking the keys`, `enroll-${answer.status}`);
    } else if (answer.status === 429) {
      run.pausedUntilMs = this.options.timers.now() + (answer.retryAfterMs ?? RATE_LIMITED_DEFAULT_MS);
    } else {
      this.unavailable(answer.error ?? `HTTP ${answer.status}`, `enroll-${answer.status}`);
    }
    return false;
  }

  private async currentKeys(): Promise<Record<DemoRegion, string>> {
    const now = this.options.timers.now();
    if (this.keys && (!this.keysStale || now - this.keysCheckedAtMs < KEYS_RETRY_MS)) return this.keys;
    this.keys = await this.options.ensureKeys(this.keys ?? {});
    this.keysCheckedAtMs = now;
    this.keysStale = false;
    if (this.state) this.state.keys = { ...this.keys };
    this.saveSoon();
    return this.keys;
  }

  /** Renumbers the unsent reports when the server already has seqs at or past them. */
  private continueAt(run: HostRun, nextSeq: number): void {
    const first = run.pending[0]?.seq ?? run.saved.nextSeq;
    if (nextSeq <= first) return;
    run.pending = run.pending.map((report, i) => ({ ...report, seq: nextSeq + i }));
    run.saved.nextSeq = nextSeq + run.pending.length;
  }

  private saveSoon(): void {
    if (this.saveTimer !== undefined || this.stopped) return;
    this.saveTimer = this.options.timers.setTimeout(() => {
      this.saveTimer = undefined;
      if (this.state) this.options.store.save(this.state);
    }, SAVE_DELAY_MS);
  }

  private logOnce(kind: string, message: string): void {
    if (this.logged.has(kind)) return;
    this.logged.add(kind);
    this.options.log(message);
  }

  private isIdle(): boolean {
    return this.runs.every((run) => !run.sending && !this.hasWork(run));
  }

  private settle(): void {
    if (this.idleWaiters.length === 0 || !this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
