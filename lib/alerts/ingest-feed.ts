import { processSingleton } from '../process-singleton';

type Listener = (hostIds: readonly number[]) => void;

/** Host ids the ingest path just stored reports for, told to whoever listens (the alert scheduler). */
export interface IngestFeed {
  publish(hostIds: readonly number[]): void;
  subscribe(listener: Listener): () => void;
}

export function createIngestFeed(): IngestFeed {
  const listeners = new Set<Listener>();
  return {
    publish(hostIds) {
      if (hostIds.length === 0) return;
      for (const listener of listeners) listener(hostIds);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** This process's feed: publishing is a Set walk, so the ingest hot path never waits on alert evaluation. */
export function processIngestFeed(): IngestFeed {
  return processSingleton('ingest-feed', createIngestFeed);
}
