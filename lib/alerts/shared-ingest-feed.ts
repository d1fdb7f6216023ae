import { listen, notify, type ChannelListener, type ListenOptions } from '../db/listen';
import type { Sql } from '../db/sql';
import type { IngestFeed } from './ingest-feed';

const CHANNEL = 'inferwatch_ingested';
// A notification's payload holds at most 8000 bytes; host ids are at most 10 digits and a comma.
const IDS_PER_NOTIFICATION = 500;

export interface IngestForwarder {
  stop(): Promise<void>;
}

/**
 * Tells every process on the database which hosts this one just stored reports for, a batch every `batchMs`: with
 * several replicas behind a load balancer, the leader's alert engine evaluates a host soon after it reported to any
 * of them. Lost batches cost only speed: full cycles evaluate every host.
 */
export function forwardIngestFeed(
  sql: Pick<Sql, 'query'>,
  from: IngestFeed,
  options: { batchMs?: number; onError?: (err: unknown) => void } = {},
): IngestForwarder {
  const pending = new Set<number>();
  let timer: NodeJS.Timeout | null = null;
  let sending: Promise<void> | null = null;

  const send = async () => {
    timer = null;
    const ids = [...pending];
    pending.clear();
    for (let i = 0; i < ids.length; i += IDS_PER_NOTIFICATION) {
      await notify(sql, CHANNEL, ids.slice(i, i + IDS_PER_NOTIFICATION).join(','));
    }
  };

  const unsubscribe = from.subscribe((hostIds) => {
    for (const id of hostIds) pending.add(id);
    timer ??= setTimeout(() => {
      sending = send()
        .catch((err: unknown) => options.onError?.(err))
        .finally(() => (sending = null));
    }, options.batchMs ?? 200);
  });

  return {
    async stop() {
      unsubscribe();
      if (timer) clearTimeout(timer);
      await sending;
    },
  };
}

/** Publishes into `to` the host ids any process on the database forwarded (this one's included). */
export function listenToIngestFeed(url: string, to: IngestFeed, options: ListenOptions = {}): ChannelListener {
  return listen(
    url,
    CHANNEL,
    (payload) => {
      const ids = payload.split(',').map(Number).filter((id) => Number.isInteger(id) && id > 0);
      to.publish(ids);
    },
    options,
  );
}
