import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { authenticateHost, revokeHostToken } from '../../lib/auth/authenticate-host';
import { approveReenrollment, enrollHost } from '../../lib/auth/enroll-host';
import { ENROLL_RATE } from '../../lib/auth/enroll-rate-limit';
import { createEnrollmentKey } from '../../lib/auth/enrollment-keys';
import { closeDb, getDb } from '../../lib/db';
import { toErrorEnvelope } from '../../lib/errors';
import { CLIENT_ADDRESS_HEADER } from '../../lib/http/client-address';
import { createEmbeddedDatabase, createServerDatabase, type TestDatabase } from './ingest-helpers';
import { rowsOf } from '../support/rows';

async function rejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (err) {
    const { status, body, headers } = toErrorEnvelope(err);
    return { status, headers, ...body.error };
  }
  throw new Error('expected a rejection');
}

const accepted = (db: TestDatabase['db'], token: string) => authenticateHost(db, token).then(() => true, () => false);

// Before: any valid key re-enrolled an existing host by its hostname alone (public on the fleet page and /metrics),
// handing out a fresh token and locking the real agent out.
describe.each([
  ['PostgreSQL server', createServerDatabase],
  ['embedded PGlite', createEmbeddedDatabase],
] as const)('re-enrolling an existing host must prove it is that host (%s)', (_, createDatabase) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createDatabase();
  });
  afterAll(async () => {
    await t.drop();
  });

  test('a hostname with a null or another machine-id is refused (409, naming the approval command) and the real agent keeps its token', async () => {
    const key = await createEnrollmentKey(t.db, { name: 'k', region: 'oslo', labels: {} });
    const real = await enrollHost(t.db, key.key, { hostname: 'vm', machineId: 'machine-a' });
    for (const machineId of [null, 'machine-b']) {
      const refused = await rejection(enrollHost(t.db, key.key, { hostname: 'vm', machineId }));
      expect(refused).toMatchObject({ status: 409, code: 'reenrollment_not_proven' });
      expect(refused.message).toContain(`npm run admin -- hosts approve-reenroll ${real.hostId}`);
    }
    expect(await accepted(t.db, real.token)).toBe(true);
  });

  test('the machine-id it enrolled with is proof: the host keeps its id and gets a new token', async () => {
    const key = await createEnrollmentKey(t.db, { name: 'k', region: 'oslo', labels: {} });
    const first = await enrollHost(t.db, key.key, { hostname: 'mid-1', machineId: 'machine-mid-1' });
    const again = await enrollHost(t.db, key.key, { hostname: 'mid-1', machineId: 'machine-mid-1' });
    expect(again.hostId).toBe(first.hostId);
    expect([await accepted(t.db, first.token), await accepted(t.db, again.token)]).toEqual([false, true]);
  });

  test('its host token is proof, and so is the token a re-enrollment just replaced (a retry whose answer was lost); another host\'s is not', async () => {
    const key = await createEnrollmentKey(t.db, { name: 'k', region: 'oslo', labels: {} });
    const first = await enrollHost(t.db, key.key, { hostname: 'tok-1', machineId: null });
    const other = await enrollHost(t.db, key.key, { hostname: 'tok-2', machineId: null });
    const second = await enrollHost(t.db, key.key, { hostname: 'tok-1', machineId: null, hostToken: first.token });
    expect(second.hostId).toBe(first.hostId);
    // The answer to `second` was lost: the agent still holds `first.token` and retries with it.
    const retried = await enrollHost(t.db, key.key, { hostname: 'tok-1', machineId: null, hostToken: first.token });
    expect(retried.hostId).toBe(first.hostId);
    expect([await accepted(t.db, first.token), await accepted(t.db, second.token), await accepted(t.db, retried.token)]).toEqual([false, false, true]);
    // A replaced token is proof only on enroll, and only for a while.
    await t.db.sql.query("UPDATE hosts SET token_rotated_at = now() - interval '16 minutes' WHERE id = $1", [first.hostId]);
    expect(await rejection(enrollHost(t.db, key.key, { hostname: 'tok-1', machineId: null, hostToken: second.token }))).toMatchObject({ status: 409 });
    expect(await rejection(enrollHost(t.db, key.key, { hostname: 'tok-1', machineId: null, hostToken: other.token }))).toMatchObject({ status: 409 });
  });

  test('a revoked host stays revoked, even with its machine-id, until an administrator approves one re-enrollment', async () => {
    const key = await createEnrollmentKey(t.db, { name: 'k', region: 'oslo', labels: {} });
    const host = await enrollHost(t.db, key.key, { hostname: 'rev-1', machineId: 'machine-rev-1' });
    await revokeHostToken(t.db, host.hostId);
    const refused = await rejection(enrollHost(t.db, key.key, { hostname: 'rev-1', machineId: 'machine-rev-1', hostToken: host.token }));
    expect(refused).toMatchObject({ status: 403, code: 'host_revoked' });
    expect(refused.message).toContain(`hosts approve-reenroll ${host.hostId}`);
    // The agent holding the revoked token is told the same way.
    const told = await rejection(authenticateHost(t.db, host.token));
    expect(told).toMatchObject({ status: 401 });
    expect(told.message).toContain(`hosts approve-reenroll ${host.hostId}`);

    await approveReenrollment(t.db, host.hostId);
    const back = await enrollHost(t.db, key.key, { hostname: 'rev-1', machineId: 'machine-rev-1' });
    expect(back.hostId).toBe(host.hostId);
    expect([await accepted(t.db, host.token), await accepted(t.db, back.token)]).toEqual([false, true]);
    // The revoked token is no proof afterwards either.
    await revokeHostToken(t.db, host.hostId);
    await approveReenrollment(t.db, host.hostId);
    const again = await enrollHost(t.db, key.key, { hostname: 'rev-1', machineId: 'machine-rev-1' });
    await revokeHostToken(t.db, host.hostId);
    expect(await rejection(enrollHost(t.db, key.key, { hostname: 'rev-1', machineId: null, hostToken: again.token }))).toMatchObject({ status: 403 });
  });

  test('an approval lets one enrollment without proof through (a reinstalled machine, a lost state dir), then it is used up', async () => {
    const key = await createEnrollmentKey(t.db, { name: 'k', region: 'oslo', labels: {} });
    const host = await enrollHost(t.db, key.key, { hostname: 'lost-1', machineId: 'machine-old' });
    const approval = await approveReenrollment(t.db, host.hostId);
    expect(new Date(approval.approvedUntil).getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    const reinstalled = await enrollHost(t.db, key.key, { hostname: 'lost-1', machineId: 'machine-new' });
    expect(reinstalled.hostId).toBe(host.hostId);
    expect(await rejection(enrollHost(t.db, key.key, { hostname: 'lost-1', machineId: null }))).toMatchObject({ status: 409 });
    // The new machine-id is the host's proof from now on.
    expect((await enrollHost(t.db, key.key, { hostname: 'lost-1', machineId: 'machine-new' })).hostId).toBe(host.hostId);
    expect(await rejection(approveReenrollment(t.db, 999_999))).toMatchObject({ status: 404 });
  });

  test('a key capped at N hosts enrolls N new hosts and refuses the next (403); its hosts still re-enroll', async () => {
    const key = await createEnrollmentKey(t.db, { name: 'capped', region: 'lisbon', labels: {}, maxHosts: 2 });
    expect(key.maxHosts).toBe(2);
    const a = await enrollHost(t.db, key.key, { hostname: 'cap-1', machineId: 'machine-cap-1' });
    await enrollHost(t.db, key.key, { hostname: 'cap-2', machineId: 'machine-cap-2' });
    const refused = await rejection(enrollHost(t.db, key.key, { hostname: 'cap-3', machineId: 'machine-cap-3' }));
    expect(refused).toMatchObject({ status: 403, code: 'forbidden', message: expect.stringContaining('at most 2 hosts') });
    expect((await enrollHost(t.db, key.key, { hostname: 'cap-1', machineId: 'machine-cap-1' })).hostId).toBe(a.hostId);
  });

  test('concurrent enrollments of new hosts never pass a key\'s cap', async () => {
    const key = await createEnrollmentKey(t.db, { name: 'race', region: 'lisbon', labels: {}, maxHosts: 3 });
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => enrollHost(t.db, key.key, { hostname: `race-${i}`, machineId: `machine-race-${i}` })));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
  });
});

describe('POST /api/v1/enroll over HTTP', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createServerDatabase();
    process.env.DATABASE_URL = t.url;
  });
  afterAll(async () => {
    await closeDb();
    await t.drop();
  });

  const enrollFrom = async (address: string, key: string, body: unknown) => {
    const { POST } = await import('../../app/api/v1/enroll/route');
    return POST(new Request('http://x/api/v1/enroll', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, [CLIENT_ADDRESS_HEADER]: address },
      body: JSON.stringify(body),
    }));
  };

  test('the takeover from the issue: {"hostname":"vm","machineId":null} with a valid key is refused, the real agent keeps reporting', async () => {
    const key = await createEnrollmentKey(await getDb(), { name: 'local', region: 'local', labels: {} });
    const real = await enrollFrom('10.0.0.1', key.key, { hostname: 'vm', machineId: '3d1219c7c4c5404aaa1f6d2a48adfda4' });
    expect(real.status).toBe(200);
    const { token } = (await real.json()) as { token: string };
    const takeover = await enrollFrom('10.0.0.2', key.key, { hostname: 'vm', machineId: null });
    expect(takeover.status).toBe(409);
    expect(await accepted(await getDb(), token)).toBe(true);
  });

  test('a NUL in the hostname is refused with 400 naming it', async () => {
    const key = await createEnrollmentKey(await getDb(), { name: 'nul', region: 'local', labels: {} });
    const answer = await enrollFrom('10.0.0.3', key.key, { hostname: 'vm\u0000', machineId: null });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: { details: { path: string }[] } }).error.details[0]!.path).toBe('hostname');
  });

  test(`is rate-limited per client address: ${ENROLL_RATE.requestBurst} attempts, then 429 with Retry-After; another address is not`, async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= ENROLL_RATE.requestBurst; i++) statuses.push((await enrollFrom('192.0.2.7', 'iwk_guess', { hostname: 'g', machineId: null })).status);
    expect(statuses.slice(0, ENROLL_RATE.requestBurst).every((s) => s === 401)).toBe(true);
    const limited = await enrollFrom('192.0.2.7', 'iwk_guess', { hostname: 'g', machineId: null });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await enrollFrom('192.0.2.8', 'iwk_guess', { hostname: 'g', machineId: null })).status).toBe(401);
  });
});

describe('an administrator revokes a host and approves its re-enrollment over the API', () => {
  let t: TestDatabase;
  const ADMIN_TOKEN = 'enroll-proof-bootstrap-secret';
  beforeAll(async () => {
    t = await createServerDatabase();
    process.env.DATABASE_URL = t.url;
    process.env.INFERWATCH_ADMIN_TOKEN = ADMIN_TOKEN;
    process.env.INFERWATCH_LOCAL_SIGN_IN = 'off';
  });
  afterAll(async () => {
    delete process.env.INFERWATCH_ADMIN_TOKEN;
    delete process.env.INFERWATCH_LOCAL_SIGN_IN;
    await closeDb();
    await t.drop();
  });

  const adminPost = async (path: 'reenroll-approval' | 'token-revocation', hostId: number, token: string | null = ADMIN_TOKEN) => {
    const route = path === 'reenroll-approval'
      ? await import('../../app/api/v1/admin/hosts/[id]/reenroll-approval/route')
      : await import('../../app/api/v1/admin/hosts/[id]/token-revocation/route');
    const headers: Record<string, string> = { [CLIENT_ADDRESS_HEADER]: '192.0.2.7' };
    if (token) headers.authorization = `Bearer ${token}`;
    return route.POST(new Request(`http://x/api/v1/admin/hosts/${hostId}/${path}`, { method: 'POST', headers }), { params: Promise.resolve({ id: String(hostId) }) });
  };

  test('revoked through the API the token stops and the host stays out; approved, one enrollment without proof gets back in; both audited', async () => {
    const db = await getDb();
    const key = await createEnrollmentKey(db, { name: 'k', region: 'oslo', labels: {} });
    const host = await enrollHost(db, key.key, { hostname: 'api-vm', machineId: 'machine-api' });

    expect((await adminPost('token-revocation', host.hostId, null)).status).toBe(401);
    expect(await accepted(db, host.token)).toBe(true);
    expect((await adminPost('token-revocation', host.hostId)).status).toBe(204);
    expect(await accepted(db, host.token)).toBe(false);
    expect(await rejection(enrollHost(db, key.key, { hostname: 'api-vm', machineId: 'machine-api' }))).toMatchObject({ status: 403 });

    const approved = await adminPost('reenroll-approval', host.hostId);
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ hostId: host.hostId, hostname: 'api-vm', region: 'oslo' });
    const back = await enrollHost(db, key.key, { hostname: 'api-vm', machineId: null });
    expect(back.hostId).toBe(host.hostId);
    expect(await accepted(db, back.token)).toBe(true);

    const actions = await rowsOf<{ action: string; target: string; ip: string }>(db.sql,
      "SELECT action, target, ip FROM audit_log WHERE action LIKE 'host.%' ORDER BY id",
    );
    // The enrollments themselves are audited too (called here without a client address); the refused one is not.
    expect(actions).toEqual([
      { action: 'host.enroll', target: `host ${host.hostId} (api-vm)`, ip: '' },
      { action: 'host.revoke-token', target: `host ${host.hostId}`, ip: '192.0.2.7' },
      { action: 'host.approve-reenroll', target: `host ${host.hostId} (api-vm)`, ip: '192.0.2.7' },
      { action: 'host.reenroll', target: `host ${host.hostId} (api-vm)`, ip: '' },
    ]);
  });

  test('an unknown host is 404 for both', async () => {
    expect((await adminPost('token-revocation', 999_999)).status).toBe(404);
    expect((await adminPost('reenroll-approval', 999_999)).status).toBe(404);
  });
});
