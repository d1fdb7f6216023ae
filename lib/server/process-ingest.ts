import 'server-only';
import { getDb } from '../db';
import { DatabaseUnavailableError, toErrorEnvelope } from '../errors';
import { createIngestDeps } from '../ingest/ingest-deps';
import { ingestLimits } from '../ingest/limits';
import { ingestRequest, type IngestDeps, type IngestInput, type IngestOutput } from '../ingest/ingest-request';
import { createIngestHttpHandler } from '../ingest/http/node-handler';
import { processIngestFeed } from '../alerts/ingest-feed';
import { processMetrics } from './process-metrics';
import { processSlot } from '../process-singleton';
import { serverEnvironment } from './environment';

// One writer per process, whichever copy of lib ingests.
const writer = processSlot<Promise<IngestDeps>>('ingest');

function processDeps(): Promise<IngestDeps> {
  let pending = writer.get();
  if (!pending) {
    pending = getDb()
      .then((db) => {
        const { retentionDays, ingestRate } = serverEnvironment();
        return createIngestDeps(db, {
          limits: ingestLimits({ rawRetentionDays: retentionDays.raw, rate: ingestRate }),
          metrics: processMetrics().ingest,
          onStored: (hostId) => processIngestFeed().publish([hostId]),
        });
      })
      .catch((err: unknown) => {
        writer.set(undefined);
        throw err;
      });
    writer.set(pending);
  }
  return pending;
}

/** ingestRequest against this process's database (getDb()); 503 while it cannot be opened. */
export async function ingestWithProcessDatabase(input: IngestInput): Promise<IngestOutput> {
  const started = performance.now();
  let deps: IngestDeps;
  try {
    deps = await processDeps();
  } catch (err) {
    console.error(`ingest: database unavailable: ${(err as Error).message}`);
    const { status, body, headers } = toErrorEnvelope(new DatabaseUnavailableError());
    const output = { status, body, headers: headers ?? {} };
    // Counted with the time it waited for the database to open, not as an instant answer.
    processMetrics().ingest.observeRequest(output, (performance.now() - started) / 1000);
    return output;
  }
  return ingestRequest(input, deps);
}

/** Flushes what is queued and stops the writer; call before closeDb() on shutdown. */
export async function closeIngest(): Promise<void> {
  const pending = writer.get();
  writer.set(undefined);
  if (pending) await (await pending.catch(() => null))?.writer.close();
}

/** What the custom server routes `POST /api/v1/ingest` to: the same core as the Next route, without Next. */
export const handleIngestHttp = createIngestHttpHandler(ingestWithProcessDatabase);
