import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeDb, getDb } from '../../lib/db';
import { createEnrollmentKey } from '../../lib/auth/enrollment-keys';
import { createIngestHttpHandler } from '../../lib/ingest/http/node-handler';
import { createIngestDeps } from '../../lib/ingest/ingest-deps';
import { ingestRequest, type IngestDeps } from '../../lib/ingest/ingest-request';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { enrolledHost } from './ingest-helpers';

// Each oversized body is produced on demand and counted as it is pulled: what a route reads is what it could have
// buffered. Before, enroll and the JSON reader of admin routes read all of it before judging it.
const CHUNK_BYTES = 64 * 1024;
const OVERSIZED_BYTES = 64 * 1024 * 1024;
const ADMIN = 'test-admin-token';

function streamedBody(totalBytes = OVERSIZED_BYTES) {
  const counter = { pulled: 0 };
  const chunk = new Uint8Array(CHUNK_BYTES).fill(0x20);
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (counter.pulled >= totalBytes) return controller.close();
        counter.pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, counter };
}

function post(stream: ReadableStream<Uint8Array>, authorization?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization) headers.authorization = authorization;
  return new Request('http://localhost/x', { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit);
}

let testDb: TestDatabase;

beforeAll(async () => {
  testDb = await createTestDatabase();
  process.env.DATABASE_URL = testDb.url;
  process.env.INFERWATCH_ADMIN_TOKEN = ADMIN;
});

afterAll(async () => {
  await closeDb();
  delete process.env.INFERWATCH_ADMIN_TOKEN;
  await testDb?.drop();
});

describe('a streamed oversized body', () => {
  test('POST /api/v1/enroll: without a valid key it is refused before a byte is read; with one, reading stops past the limit (413)', async () => {
    const { POST } = await import('../../app/api/v1/enroll/route');
    const anonymous = streamedBody();
    const refused = await POST(post(anonymous.stream));
    expect(refused.status).toBe(401);
    expect(anonymous.counter.pulled).toBe(0);

    const unknown = streamedBody();
    expect((await POST(post(unknown.stream, 'Bearer iwk_not-a-key'))).status).toBe(401);
    expect(unknown.counter.pulled).toBe(0);

    const key = await createEnrollmentKey(await getDb(), { name: 'k', region: 'oslo', labels: {} });
    const keyed = streamedBody();
    const tooLarge = await POST(post(keyed.stream, `Bearer ${key.key}`));
    expect(tooLarge.status).toBe(413);
    expect(keyed.counter.pulled).toBeLessThanOrEqual(16 * 1024 + CHUNK_BYTES);
  });

  test('admin JSON routes: without credentials nothing is read; with them, reading stops past 256 KiB (413)', async () => {
    const keys = await import('../../app/api/v1/admin/enrollment-keys/route');
    const channels = await import('../../app/api/v1/alerts/channels/route');
    for (const route of [keys.POST, channels.POST]) {
      const anonymous = streamedBody();
      // As the server runs when exposed: without local sign-in, no credentials is nobody.
      process.env.INFERWATCH_LOCAL_SIGN_IN = 'off';
      const refused = await route(post(anonymous.stream)).finally(() => delete process.env.INFERWATCH_LOCAL_SIGN_IN);
      expect(refused.status).toBe(401);
      expect(anonymous.counter.pulled).toBe(0);
      const admin = streamedBody();
      expect((await route(post(admin.stream, `Bearer ${ADMIN}`))).status).toBe(413);
      expect(admin.counter.pulled).toBeLessThanOrEqual(256 * 1024 + CHUNK_BYTES);
    }
  });

  test('POST /api/v1/ingest (the Next route): without a host token nothing is read; with one, reading stops past 1 MiB (413)', async () => {
    const { POST } = await import('../../app/api/v1/ingest/route');
    const host = await enrolledHost(await getDb());
    const anonymous = streamedBody();
    expect((await POST(post(anonymous.stream))).status).toBe(401);
    expect(anonymous.counter.pulled).toBe(0);
    const keyed = streamedBody();
    expect((await POST(post(keyed.stream, `Bearer ${host.token}`))).status).toBe(413);
    expect(keyed.counter.pulled).toBeLessThanOrEqual(1024 * 1024 + CHUNK_BYTES);
  });

  describe('POST /api/v1/ingest on the node:http listener', () => {
    let deps: IngestDeps;
    beforeAll(async () => {
      deps = createIngestDeps(await getDb());
    });
    afterAll(async () => {
      await deps.writer.close();
    });

    /** A request whose body is generated only as the handler reads it, and the answer the handler gave. */
    async function handle(authorization: string | undefined) {
      const counter = { pulled: 0 };
      async function* chunks() {
        const chunk = Buffer.alloc(CHUNK_BYTES, 0x20);
        while (counter.pulled < OVERSIZED_BYTES) {
          counter.pulled += chunk.length;
          yield chunk;
        }
      }
      const req = Object.assign(Readable.from(chunks(), { objectMode: false, highWaterMark: 0 }), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        complete: false,
      }) as unknown as IncomingMessage;
      const answer = { status: 0, headers: {} as Record<string, unknown> };
      const done = new Promise<void>((resolve) => {
        const res = {
          setHeader() {},
          writeHead(status: number, headers: Record<string, unknown>) {
            answer.status = status;
            answer.headers = headers;
          },
          end: () => resolve(),
        } as unknown as ServerResponse;
        void createIngestHttpHandler((input) => ingestRequest(input, deps))(req, res);
      });
      await done;
      return { ...answer, pulled: counter.pulled };
    }

    test('without a host token nothing is read and the connection is closed; with one, reading stops past 1 MiB (413)', async () => {
      const anonymous = await handle(undefined);
      expect(anonymous.status).toBe(401);
      expect(anonymous.pulled).toBe(0);
      expect(anonymous.headers.Connection).toBe('close');
      const host = await enrolledHost(await getDb());
      const keyed = await handle(`Bearer ${host.token}`);
      expect(keyed.status).toBe(413);
      // The stream reads one chunk ahead of the handler.
      expect(keyed.pulled).toBeLessThanOrEqual(1024 * 1024 + 2 * CHUNK_BYTES);
      expect(keyed.headers.Connection).toBe('close');
    });
  });
});
