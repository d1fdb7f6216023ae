import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { realisticReport } from '../../bench/_ingest-report';
import { authenticateHost, createTokenAuth, revokeHostToken } from '../../lib/auth/authenticate-host';
import { openDatabase } from '../../lib/db/open';
import { enrollHost } from '../../lib/auth/enroll-host';
import { createEnrollmentKey, listEnrollmentKeys, revokeEnrollmentKey } from '../../lib/auth/enrollment-keys';
import { ensureLocalEnrollmentKey } from '../../lib/auth/ensure-local-enrollment-key';
import { REVOCATION_CHECK_MS } from '../../lib/auth/revocation-watch';
import { hashToken } from '../../lib/auth/tokens';
import { toErrorEnvelope } from '../../lib/errors';
import { ingestRequest, type IngestDeps } from '../../lib/ingest/ingest-request';
import { createIngestDeps } from '../../lib/ingest/ingest-deps';
import { GroupCommitWriter } from '../../lib/ingest/write/group-commit/group-commit-writer';
import { createServerDatabase, jsonBody, type TestDatabase } from './ingest-helpers';
import { rowsOf } from '../support/rows';

async function rejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (err) {
    const { status, body } = toErrorEnvelope(err);
    return { status, ...body.error };
  }
  throw new Error('expected a rejection');
}

describe('enrollment and host tokens', () => {
  let t: TestDatabase;
  let deps: IngestDeps;
  beforeAll(async () => {
    t = await createServerDatabase();
    deps = createIngestDeps(t.db);
  });
  afterAll(async () => {
    await deps.writer.close();
    await t.drop();
  });

  const ingest = (token: string, seq: number) =>
    ingestRequest({ authorization: `Bearer ${token}`, contentType: 'application/json', ...jsonBody(realisticReport(seq, Date.now() - 60_000 + seq)) }, deps);

  test('a key is stored only as its hash and listed without it', async () => {
    const created = await createEnrollmentKey(t.db, { name: 'ml oslo', region: 'oslo', labels: { team: 'ml' } });
    expect(created.key).toMatch(/^iwk_[A-Za-z0-9_-]{43}$/);
    const [row] = await rowsOf<{ token_hash: string }>(t.db.sql, 'SELECT token_hash FROM enrollment_keys WHERE id = $1', [created.id]);
    expect(row!.token_hash).toBe(hashToken(created.key));
    const listed = (await listEnrollmentKeys(t.db)).find((k) => k.id === created.id)!;
    expect(JSON.stringify(listed)).not.toContain(created.key);
    expect(listed).toMatchObject({ name: 'ml oslo', region: 'oslo', labels: { team: 'ml' }, revokedAt: null });
  });

  test('enrolling gives a host token in the key region; re-enrolling the same machine rotates it and continues the seq', async () => {
    const key = await createEnrollmentKey(t.db, { name: 'k', region: 'frankfurt', labels: { tier: 'gpu' } });
    const first = await enrollHost(t.db, key.key, { hostname: 'gpu-1', machineId: 'abc' });
    expect(first).toMatchObject({ region: 'frankfurt', nextSeq: 0 });
    expect(first.token).toMatch(/^iwh_/);
    const [host] = await rowsOf<{ labels: unknown; region: string }>(t.db.sql, 'SELECT labels, region FROM hosts WHERE id = $1', [first.hostId]);
    expect(host).toEqual({ labels: { tier: 'gpu' }, region: 'frankfurt' });
    for (const seq of [0, 1, 2]) expect((await ingest(first.token, seq)).status).toBe(200);

    const again = await enrollHost(t.db, key.key, { hostname: 'gpu-1-renamed', machineId: 'abc' });
    expect(again.hostId).toBe(first.hostId);
    expect(again.token).not.toBe(first.token);
    expect(again.nextSeq).toBe(3);
    const old = await ingest(first.token, 3);
    expect(old.status).toBe(401);
    expect((await ingest(again.token, 3)).status).toBe(200);
  });

  test('re-enrolling continues after the newer of the ledger and hosts.last_seq, whichever of them lags', async () => {
    const key = await createEnrollmentKey(t.db, { name: 'k', region: 'lisbon', labels: {} });
    const setLastSeq = (hostId: number, lastSeq: number | null) => t.db.sql.query('UPDATE hosts SET last_seq = $2 WHERE id = $1', [hostId, lastSeq]);

    // Stored in the ledger, but hosts.last_seq not written yet (the writer writes host progress a few seconds behind).
    const ingested = await enrollHost(t.db, key.key, { hostname: 'behind-1', machineId: 'm-behind-1' });
    for (const seq of [0, 1, 2, 3, 4]) expect((await ingest(ingested.token, seq)).status).toBe(200);
    await (deps.writer as GroupCommitWriter).writeHostProgress();
    await setLastSeq(ingested.hostId, null);
    expect((await enrollHost(t.db, key.key, { hostname: 'behind-1', machineId: 'm-behind-1' })).nextSeq).toBe(5);

    // The reverse: hosts.last_seq says 41, the ledger has nothing of the host.
    const noLedger = await enrollHost(t.db, key.key, { hostname: 'behind-2', machineId: 'm-behind-2' });
    await setLastSeq(noLedger.hostId, 41);
    const [ledger] = await rowsOf<{ n: number }>(t.db.sql, 'SELECT count(*)::int AS n FROM report_ledger WHERE host_id = $1', [noLedger.hostId]);
    expect(ledger!.n).toBe(0);
    expect((await enrollHost(t.db, key.key, { hostname: 'behind-2', machineId: 'm-behind-2' })).nextSeq).toBe(42);
  });

  test('without a machine-id a hostname is no proof: enrolling an enrolled hostname again is refused (409), another is a new host', async () => {
    const key = await createEnrollmentKey(t.db, { name: 'k', region: 'paris', labels: {} });
    const a = await enrollHost(t.db, key.key, { hostname: 'cpu-7', machineId: null });
    expect(await rejection(enrollHost(t.db, key.key, { hostname: 'cpu-7', machineId: null }))).toMatchObject({ status: 409, code: 'reenrollment_not_proven' });
    const c = await enrollHost(t.db, key.key, { hostname: 'cpu-8', machineId: null });
    expect(c.hostId).not.toBe(a.hostId);
  });

  test('enrollment is refused for unknown (401), revoked (403) and expired (403) keys', async () => {
    expect(await rejection(enrollHost(t.db, 'iwk_unknown', { hostname: 'x', machineId: null }))).toMatchObject({ status: 401, code: 'unauthorized', message: 'missing or invalid enrollment key' });
    expect(await rejection(enrollHost(t.db, null, { hostname: 'x', machineId: null }))).toMatchObject({ status: 401 });
    const revoked = await createEnrollmentKey(t.db, { name: 'r', region: 'oslo', labels: {} });
    await revokeEnrollmentKey(t.db, revoked.id);
    expect(await rejection(enrollHost(t.db, revoked.key, { hostname: 'x', machineId: null }))).toMatchObject({ status: 403, code: 'forbidden', message: 'enrollment key has been revoked' });
    const expired = await createEnrollmentKey(t.db, { name: 'e', region: 'oslo', labels: {}, expiresAt: new Date(Date.now() - 1000) });
    expect(await rejection(enrollHost(t.db, expired.key, { hostname: 'x', machineId: null }))).toMatchObject({ status: 403, code: 'forbidden', message: 'enrollment key has expired' });
    const [n] = await rowsOf<{ n: number }>(t.db.sql, "SELECT count(*)::int AS n FROM hosts WHERE hostname = 'x'");
    expect(n!.n).toBe(0);
  });

  test('revoking a host token stops it at once, even when it was cached', async () => {
    const key = await createEnrollmentKey(t.db, { name: 'k', region: 'oslo', labels: {} });
    const host = await enrollHost(t.db, key.key, { hostname: 'revoke-me', machineId: null });
    expect(await authenticateHost(t.db, host.token)).toEqual({ id: host.hostId, region: 'oslo' });
    await revokeHostToken(t.db, host.hostId);
    expect(await rejection(authenticateHost(t.db, host.token))).toMatchObject({ status: 401, message: expect.stringContaining(`host ${host.hostId}) was revoked by an administrator`) });
  });

  test('another process (a second database handle) with the token cached stops accepting it once its revocation check is due (1 s)', async () => {
    const other = await openDatabase({ kind: 'server', url: t.url! });
    try {
      const key = await createEnrollmentKey(t.db, { name: 'k2', region: 'oslo', labels: {} });
      const revoked = await enrollHost(t.db, key.key, { hostname: 'revoke-elsewhere', machineId: null });
      const rotated = await enrollHost(t.db, key.key, { hostname: 'rotate-elsewhere', machineId: 'm-rotate' });
      // The other process's clock moves only when the test moves it, however long each step takes here.
      let clockMs = Date.now();
      const auth = createTokenAuth(other.sql, undefined, () => clockMs);
      const accepted = (token: string) => authenticateHost(other, token, auth).then(() => true, (err) => {
        if (toErrorEnvelope(err).status !== 401) throw err;
        return false;
      });
      expect([await accepted(revoked.token), await accepted(rotated.token)]).toEqual([true, true]);
      expect(auth.cache.size).toBe(2);
      await revokeHostToken(t.db, revoked.hostId);
      await enrollHost(t.db, key.key, { hostname: 'rotate-elsewhere', machineId: 'm-rotate' });

      // Until its check is due, the other process answers from its cache: the revocation has not reached it yet.
      clockMs += REVOCATION_CHECK_MS / 2 - 1;
      expect([await accepted(revoked.token), await accepted(rotated.token)]).toEqual([true, true]);
      clockMs += REVOCATION_CHECK_MS / 2 + 1;
      expect([await accepted(revoked.token), await accepted(rotated.token)]).toEqual([false, false]);
    } finally {
      await other.close();
    }
  });

  test('the local enrollment key file is created 0600 and reused while the key is valid', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-local-key-'));
    const file = path.join(dir, 'enroll.key');
    const key = await ensureLocalEnrollmentKey(t.db, file);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(await ensureLocalEnrollmentKey(t.db, file)).toBe(key);
    const [row] = await rowsOf<{ id: number; name: string; region: string }>(t.db.sql, 'SELECT id, name, region FROM enrollment_keys WHERE token_hash = $1', [hashToken(key)]);
    expect(row).toMatchObject({ name: 'local', region: 'local' });
    await revokeEnrollmentKey(t.db, row!.id);
    const replaced = await ensureLocalEnrollmentKey(t.db, file);
    expect(replaced).not.toBe(key);
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(replaced);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('enrollment HTTP routes', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createServerDatabase();
    process.env.DATABASE_URL = t.url;
    process.env.INFERWATCH_ADMIN_TOKEN = 'test-admin-token';
  });
  afterAll(async () => {
    const { closeDb } = await import('../../lib/db');
    await closeDb();
    delete process.env.INFERWATCH_ADMIN_TOKEN;
    await t.drop();
  });

  test('an admin creates a key over HTTP, a host enrolls with it, the admin revokes it', async () => {
    const keys = await import('../../app/api/v1/admin/enrollment-keys/route');
    const keyById = await import('../../app/api/v1/admin/enrollment-keys/[id]/route');
    const enroll = await import('../../app/api/v1/enroll/route');
    const admin = { authorization: 'Bearer test-admin-token', 'content-type': 'application/json' };

    process.env.INFERWATCH_LOCAL_SIGN_IN = 'off';
    expect((await keys.GET(new Request('http://x/api/v1/admin/enrollment-keys'))).status).toBe(401);
    delete process.env.INFERWATCH_LOCAL_SIGN_IN;
    const created = await keys.POST(new Request('http://x', { method: 'POST', headers: admin, body: JSON.stringify({ name: 'n', region: 'oslo', labels: { team: 'ml' } }) }));
    expect(created.status).toBe(201);
    const { id, key } = (await created.json()) as { id: number; key: string };
    const listed = (await (await keys.GET(new Request('http://x', { headers: admin }))).json()) as { keys: unknown[] };
    expect(JSON.stringify(listed)).not.toContain(key);

    const enrolled = await enroll.POST(new Request('http://x', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: JSON.stringify({ hostname: 'h', machineId: null }) }));
    expect(enrolled.status).toBe(200);
    expect(await enrolled.json()).toMatchObject({ region: 'oslo', nextSeq: 0 });
    const invalid = await enroll.POST(new Request('http://x', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: JSON.stringify({ hostname: '' }) }));
    expect(invalid.status).toBe(400);

    const revoked = await keyById.DELETE(new Request('http://x', { method: 'DELETE', headers: admin }), { params: Promise.resolve({ id: String(id) }) });
    expect(revoked.status).toBe(200);
    const refused = await enroll.POST(new Request('http://x', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: JSON.stringify({ hostname: 'h2', machineId: null }) }));
    expect(refused.status).toBe(403);
    // The key is judged before the body: a revoked key is refused whatever it sends.
    const invalidAfterRevoke = await enroll.POST(new Request('http://x', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: JSON.stringify({ hostname: '' }) }));
    expect(invalidAfterRevoke.status).toBe(403);
  });
});
