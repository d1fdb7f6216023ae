import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { EnrollError, enroll, readHostToken, readMachineId, readStateMachineId, readTokenForOrigin } from '../../../../agent/transport/enroll';

let status = 200;
let refusal = { code: 'unauthorized', message: 'unknown enrollment key' };
const requests: { auth: string | undefined; body: unknown }[] = [];
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString('utf8')));
  req.on('end', () => {
    requests.push({ auth: req.headers.authorization, body: JSON.parse(body) });
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(status === 200 ? JSON.stringify({ hostId: 7, token: 'tok-new', region: 'oslo', nextSeq: 120 }) : JSON.stringify({ error: refusal }));
  });
});
let url: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('enrolls with the key as bearer, stores the token 0600 for that server and returns nextSeq', async () => {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'iw-enroll-'));
  status = 200;
  const result = await enroll({ server: url, stateDir, enrollKey: 'ek-1', request: { hostname: 'h1', machineId: 'm1' } });
  expect(result).toEqual({ hostId: 7, token: 'tok-new', server: url, nextSeq: 120 });
  expect(requests.at(-1)).toEqual({ auth: 'Bearer ek-1', body: { hostname: 'h1', machineId: 'm1' } });
  const file = path.join(stateDir, 'host-token.json');
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ hostId: 7, token: 'tok-new', server: url });
  expect(readHostToken(stateDir, url)).toEqual({ hostId: 7, token: 'tok-new', server: url });
  expect(readHostToken(stateDir, 'http://other-server')).toBeNull();
});

test('a rejected key is a non-retryable error that does not contain the key', async () => {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'iw-enroll-'));
  status = 401;
  const error = await enroll({ server: url, stateDir, enrollKey: 'ek-SECRET', request: { hostname: 'h', machineId: null } }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(EnrollError);
  expect((error as EnrollError).retryable).toBe(false);
  expect((error as EnrollError).message).toBe('enrollment failed: HTTP 401 — the enrollment key was rejected: unknown enrollment key');
  expect(readHostToken(stateDir, url)).toBeNull();
});

test('an unreachable server is a retryable error', async () => {
  const error = await enroll({ server: 'http://127.0.0.1:1', stateDir: os.tmpdir(), enrollKey: 'k', request: { hostname: 'h', machineId: null } }).catch((e: unknown) => e);
  expect((error as EnrollError).retryable).toBe(true);
});

test('machine id is read trimmed, null when missing or empty', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'iw-mid-'));
  writeFileSync(path.join(dir, 'machine-id'), '3d1219c7c4c5404aaa1f6d2a48adfda4\n');
  writeFileSync(path.join(dir, 'empty'), '');
  expect(await readMachineId(path.join(dir, 'machine-id'))).toBe('3d1219c7c4c5404aaa1f6d2a48adfda4');
  expect(await readMachineId(path.join(dir, 'empty'))).toBeNull();
  expect(await readMachineId(path.join(dir, 'missing'))).toBeNull();
});

test('a host the server will not hand over (409, or 403 revoked) is a non-retryable error with the server\'s reason, not a key hint', async () => {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'iw-enroll-'));
  for (const [code, answer] of [[409, 'reenrollment_not_proven'], [403, 'host_revoked']] as const) {
    status = code;
    refusal = { code: answer, message: 'approve it: npm run admin -- hosts approve-reenroll 7' };
    const error = (await enroll({ server: url, stateDir, enrollKey: 'ek', request: { hostname: 'h', machineId: null } }).catch((e: unknown) => e)) as EnrollError;
    expect(error.retryable).toBe(false);
    expect(error.message).toBe(`enrollment failed: HTTP ${code}: approve it: npm run admin -- hosts approve-reenroll 7`);
  }
  refusal = { code: 'unauthorized', message: 'unknown enrollment key' };
});

test('a host without /etc/machine-id enrolls with an id made once and kept in its state dir (0600)', async () => {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'iw-enroll-'));
  const id = await readStateMachineId(stateDir);
  expect(id).toMatch(/^[0-9a-f]{32}$/);
  expect(statSync(path.join(stateDir, 'machine-id')).mode & 0o777).toBe(0o600);
  expect(await readStateMachineId(stateDir)).toBe(id);
  expect(await readStateMachineId(mkdtempSync(path.join(os.tmpdir(), 'iw-enroll-')))).not.toBe(id);
});

test('a token issued under another spelling of the same server\'s URL is offered as proof; another server\'s is not', async () => {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'iw-enroll-'));
  writeFileSync(path.join(stateDir, 'host-token.json'), JSON.stringify({ hostId: 3, token: 'iwh_x', server: 'https://mon.example:8443/inferwatch' }));
  expect(readTokenForOrigin(stateDir, 'https://mon.example:8443')).toMatchObject({ hostId: 3, token: 'iwh_x' });
  expect(readTokenForOrigin(stateDir, 'https://other.example:8443')).toBeNull();
  expect(readHostToken(stateDir, 'https://mon.example:8443')).toBeNull();
});
