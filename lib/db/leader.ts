import pg from 'pg';
import { z } from 'zod';
import { LEADER_LOCK_ID } from './locks';
import { checkRows } from './rows';
import type { DatabaseTarget } from './target';

const lockAttemptRow = z.object({ won: z.boolean() });

export interface LeadershipOptions {
  /** How often a follower tries to take the lock, and how often the leader checks that its session is alive. */
  retryMs?: number;
  /** A check (or a connect) not answered within this counts as a lost session. */
  checkTimeoutMs?: number;
  /** This process leads from now on. */
  onElected(): void;
  /**
   * This process no longer leads: its session was lost (another may lead already), or stop() was called. Leader work
   * must stop; stop() waits for the returned promise before it releases the lock.
   */
  onDeposed(): Promise<void> | void;
  onError?(err: unknown): void;
}

export interface Leadership {
  isLeader(): boolean;
  /** Stops contending; a leader is deposed (and waited for), then its lock released for a follower's next try. */
  stop(): Promise<void>;
}

const DEFAULT_RETRY_MS = 2_000;
const DEFAULT_CHECK_TIMEOUT_MS = 10_000;

/**
 * Leadership among the processes on one database: whoever holds a session-level advisory lock leads. The lock lives
 * on a connection of its own, never a pooled one, and ends with it: a killed process's session ends and PostgreSQL
 * releases the lock at once. On the embedded database this process is the only one and always leads.
 */
export function electLeader(target: DatabaseTarget, options: LeadershipOptions): Leadership {
  return target.kind === 'embedded' ? soleLeader(options) : new SessionLockLeadership(target.url, options);
}

function soleLeader(options: LeadershipOptions): Leadership {
  let leading = false;
  let stopped = false;
  queueMicrotask(() => {
    if (stopped) return;
    leading = true;
    options.onElected();
  });
  return {
    isLeader: () => leading,
    async stop() {
      stopped = true;
      if (!leading) return;
      leading = false;
      await options.onDeposed();
    },
  };
}

/**
 * Server-side TCP settings of the lock's session: PostgreSQL drops a silent client (a crashed host, a partition) only
 * after twice the longest a leader takes to notice the loss itself and step down, so two never lead at once.
 */
function sessionTimeouts(retryMs: number, checkTimeoutMs: number): [string, string][] {
  const dropAfterS = Math.ceil((2 * (retryMs + checkTimeoutMs)) / 1000);
  return [
    ['tcp_keepalives_idle', String(Math.ceil(dropAfterS / 2))],
    ['tcp_keepalives_interval', String(Math.max(1, Math.ceil(dropAfterS / 6)))],
    ['tcp_keepalives_count', '3'],
    ['tcp_user_timeout', String(dropAfterS * 1000)],
  ];
}

class SessionLockLeadership implements Leadership {
  private readonly retryMs: number;
  private readonly checkTimeoutMs: number;
  private client: pg.Client | null = null;
  private leading = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private attempt: Promise<void> | null = null;

  constructor(
    private readonly url: string,
    private readonly options: LeadershipOptions,
  ) {
    this.retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
    this.checkTimeoutMs = options.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
    this.schedule(0);
  }

  isLeader(): boolean {
    return this.leading;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.attempt;
    if (this.leading) {
      this.leading = false;
      await this.options.onDeposed();
    }
    const client = this.client;
    this.client = null;
    // Ending the session releases the lock; a connection that does not answer is cut after the check timeout.
    if (client) await Promise.race([client.end().catch(() => {}), sleep(this.checkTimeoutMs)]);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.attempt = this.contend().finally(() => {
        this.attempt = null;
        this.schedule(this.retryMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async contend(): Promise<void> {
    let client = this.client;
    try {
      client ??= await this.connect();
      if (this.leading) {
        await answeredWithin(client.query('SELECT 1'), this.checkTimeoutMs);
        return;
      }
      const { rows } = await answeredWithin(client.query('SELECT pg_try_advisory_lock($1) AS won', [LEADER_LOCK_ID]), this.checkTimeoutMs);
      const [attempt] = checkRows('advisory lock', lockAttemptRow, rows);
      // Won while stop() was waiting for this attempt: stop() ends the session, which gives the lock back.
      if (attempt?.won && !this.stopped && this.client === client) {
        this.leading = true;
        this.options.onElected();
      }
    } catch (err) {
      if (client) this.lose(client, err);
      else this.options.onError?.(err);
    }
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: this.checkTimeoutMs,
    });
    client.on('error', (err) => this.lose(client, err));
    client.on('end', () => this.lose(client, new Error('the leadership session ended')));
    try {
      await client.connect();
      const timeouts = sessionTimeouts(this.retryMs, this.checkTimeoutMs);
      // Settings this server does not know (tcp_user_timeout before PostgreSQL 12) are left out.
      await client.query(
        `SELECT set_config(s.name, v.value, false)
           FROM unnest($1::text[], $2::text[]) AS v(name, value) JOIN pg_settings s ON s.name = v.name`,
        [timeouts.map(([name]) => name), timeouts.map(([, value]) => value)],
      );
    } catch (err) {
      void client.end().catch(() => {});
      throw err;
    }
    this.client = client;
    return client;
  }

  /** The session is gone or cannot be trusted: whatever this process led, it stops leading now. */
  private lose(client: pg.Client, err: unknown): void {
    if (client !== this.client) return;
    this.client = null;
    void client.end().catch(() => {});
    if (!this.stopped) this.options.onError?.(err);
    if (this.leading) {
      this.leading = false;
      void Promise.resolve(this.options.onDeposed()).catch((e: unknown) => this.options.onError?.(e));
    }
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * `query`'s answer, or a rejection once it is `timeoutMs` late. The deadline is judged after the I/O that arrived
 * meanwhile has been read: a stalled event loop runs due timers before it reads sockets, and an answer waiting there
 * must not count as a lost session.
 */
function answeredWithin<T>(query: Promise<T>, timeoutMs: number): Promise<T> {
  let answered = false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => setImmediate(() => answered || reject(new Error(`no answer within ${timeoutMs} ms`))), timeoutMs);
  });
  return Promise.race([query.finally(() => ((answered = true), clearTimeout(timer))), late]);
}
