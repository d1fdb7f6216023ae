import type pg from 'pg';

export interface CopyInput {
  /** `COPY table (cols) FROM STDIN`, without the semicolon. */
  statement: string;
  /** COPY text rows (each ending in a newline), or COPY BINARY data with its header and trailer. */
  data: string | Buffer;
}

interface PgConnection {
  stream: { write(buffer: Buffer): boolean };
}

function message(type: string, body: Buffer | null): Buffer {
  const length = 4 + (body?.length ?? 0);
  const header = Buffer.allocUnsafe(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(length, 1);
  return body ? Buffer.concat([header, body]) : header;
}

/** The Query message with every statement, then each COPY's data and CopyDone: the whole flush as one write. */
export function buildPipelinedMessage(copies: readonly CopyInput[], trailingSql: readonly string[], leadingSql: readonly string[] = []): Buffer {
  const statements = [...leadingSql, ...copies.map((c) => c.statement), ...trailingSql].join(';\n');
  const parts: Buffer[] = [message('Q', Buffer.from(`${statements}\0`, 'utf8'))];
  const copyDone = message('c', null);
  for (const copy of copies) {
    if (copy.data.length > 0) parts.push(message('d', typeof copy.data === 'string' ? Buffer.from(copy.data, 'utf8') : copy.data));
    parts.push(copyDone);
  }
  return Buffer.concat(parts);
}

/**
 * A pg "submittable" that sends several COPY … FROM STDIN statements and trailing SQL in ONE simple-protocol
 * message, data included, without waiting for each CopyInResponse (pg-copy-streams waits: two round trips per COPY).
 * PostgreSQL runs a multi-statement Query as one implicit transaction and, on an error, discards the rest of the
 * message and any CopyData that follows, so a failure leaves nothing behind.
 */
export class PipelinedCopy {
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
