import pg from 'pg';
import type { Sql } from './sql';

export interface ChannelListener {
  close(): Promise<void>;
}

export interface ListenOptions {
  /** How long after losing its connection the listener connects again. */
  retryMs?: number;
  onError?(err: unknown): void;
}

/** Sends `payload` (at most 8000 bytes) to every session listening on `channel`, on any process. */
export async function notify(sql: Pick<Sql, 'query'>, channel: string, payload: string): Promise<void> {
  await sql.query('SELECT pg_notify($1, $2)', [channel, payload]);
}

/**
 * LISTENs on `channel` over a connection of its own (a pooled one would be handed to others), connecting again
 * after `retryMs` when it drops. What was sent while it was down is lost: callers must not depend on every message.
 */
export function listen(url: string, channel: string, onPayload: (payload: string) => void, options: ListenOptions = {}): ChannelListener {
  const retryMs = options.retryMs ?? 2_000;
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | null = null;
  let connecting: Promise<void> | null = null;
  let closed = false;

  const drop = (dropped: pg.Client, err: unknown) => {
    if (dropped !== client) return;
    client = null;
    void dropped.end().catch(() => {});
    if (closed) return;
    options.onError?.(err);
    schedule(retryMs);
  };

  const connect = async () => {
    const next = new pg.Client({ connectionString: url });
    next.on('error', (err) => drop(next, err));
    next.on('end', () => drop(next, new Error(`the connection listening on ${channel} ended`)));
    next.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) onPayload(message.payload);
    });
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${next.escapeIdentifier(channel)}`);
    } catch (err) {
      drop(next, err);
    }
  };

  function schedule(delayMs: number) {
    if (closed) return;
    timer = setTimeout(() => {
      connecting = connect().finally(() => (connecting = null));
    }, delayMs);
    timer.unref();
  }

  schedule(0);
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await connecting;
      const last = client;
      client = null;
      await last?.end().catch(() => {});
    },
  };
}
