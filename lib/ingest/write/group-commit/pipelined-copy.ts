import type pg from 'pg';
import { writeCopyBinaryFrame, type BinaryWriter } from './copy-binary';

export interface CopyData {
  /** `COPY table (cols) FROM STDIN (FORMAT binary)`, without the semicolon. */
  statement: string;
  /** Appends the COPY BINARY tuples (the header and trailer go around them). */
  writeTuples(w: BinaryWriter): void;
}

interface PgConnection {
  stream: { write(buffer: Buffer): boolean };
}

/** Starts a protocol message of `type`; returns where its length goes, for endMessage. */
function beginMessage(w: BinaryWriter, type: string): number {
  w.byte(type.charCodeAt(0));
  const lengthAt = w.pos;
  w.int32(0);
  return lengthAt;
}

function endMessage(w: BinaryWriter, lengthAt: number): void {
  w.view.setInt32(lengthAt, w.pos - lengthAt);
}

/**
 * The Query message with every statement, then each COPY's data and CopyDone: the whole flush as one buffer, encoded
 * in place into `w` (returned without copying, so it is only valid until `w` is written again).
 */
export function encodePipelinedMessage(
  w: BinaryWriter,
  copies: readonly CopyData[],
  trailingSql: readonly string[],
  leadingSql: readonly string[] = [],
): Buffer {
  w.reset();
  const query = beginMessage(w, 'Q');
  w.utf8([...leadingSql, ...copies.map((c) => c.statement), ...trailingSql].join(';\n'));
  w.byte(0);
  endMessage(w, query);
  for (const copy of copies) {
    const data = beginMessage(w, 'd');
    writeCopyBinaryFrame(w, () => copy.writeTuples(w));
    endMessage(w, data);
    endMessage(w, beginMessage(w, 'c'));
  }
  return w.written();
}

/**
 * A pg "submittable" that sends several COPY … FROM STDIN statements and trailing SQL in ONE simple-protocol
 * message, data included, without waiting for each CopyInResponse (pg-copy-streams waits: two round trips per COPY).
 * PostgreSQL runs a multi-statement Query as one implicit transaction and, on an error, discards the rest of the
 * message and any CopyData that follows, so a failure leaves nothing behind.
 */
class PipelinedCopy {
  callback?: (err: Error | null) => void;
  private error: Error | null = null;
  private finished = false;
  readonly commandTags: string[] = [];

  /** pg's client-side read timeout (it reads `query_timeout` off the submitted object): a hung server fails fast. */
  constructor(private readonly payload: Buffer, readonly query_timeout?: number) {}

  submit(connection: PgConnection): void {
    connection.stream.write(this.payload);
  }

  handleCopyInResponse(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}

  handleCommandComplete(msg: { text?: string }): void {
    this.commandTags.push(msg.text ?? '');
  }

  // pg detaches the active query on an ErrorResponse, so the ReadyForQuery that follows never reaches us.
  handleError(err: Error): void {
    this.error ??= err;
    this.finish();
  }

  handleReadyForQuery(): void {
    this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.callback?.(this.error);
  }
}

export function runPipelinedCopy(client: pg.PoolClient | pg.Client, payload: Buffer, timeoutMs?: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const query = new PipelinedCopy(payload, timeoutMs);
    query.callback = (err) => (err ? reject(err) : resolve(query.commandTags));
    client.query(query as never);
  });
}
