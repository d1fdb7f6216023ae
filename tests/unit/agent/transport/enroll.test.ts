import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { EnrollError, enroll, readHostToken, readMachineId } from '../../../../agent/transport/enroll';

let status = 200;
const requests: { auth: string | undefined; body: unknown }[] = [];
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString('utf8')));
  req.on('end', () => {
    requests.push({ auth: req.headers.authorization, body: JSON.parse(body) });
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(status === 200 ? JSON.stringify({ hostId: 7, token: 'tok-new', region: 'oslo', nextSeq: 120 }) : JSON.stringify({ error: { code: 'unauthorized', message: 'unknown enrollment key' } }));
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
  expect(await readHostToken(stateDir, url)).toEqual({ hostId: 7, token: 'tok-new', server: url });
  expect(await readHostToken(stateDir, 'http://other-server')).toBeNull();
});

test('a rejected key is a non-retryable error that does not contain the key', async () => {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'iw-enroll-'));
  status = 401;
  const error = await enroll({ server: url, stateDir, enrollKey: 'ek-SECRET', request: { hostname: 'h', machineId: null } }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(EnrollError);
  expect((error as EnrollError).retryable).toBe(false);
  expect((error as EnrollError).message).toBe('enrollment failed: HTTP 401 — the enrollment key was rejected: unknown enrollment key');
  expect(await readHostToken(stateDir, url)).toBeNull();
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
