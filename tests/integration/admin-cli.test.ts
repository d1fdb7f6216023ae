import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort } from '../support/free-port';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

// `npm run admin` as an operator runs it, in a child process, beside a server on this machine: it must write where the
// server reads, or refuse and say how.
const run = promisify(execFile);
const root = process.cwd();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-admin-cli-'));
const stateDir = path.join(tmp, 'state');
const dataDir = path.join(stateDir, 'data');

async function admin(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', '--import', './scripts/register-server-runtime.mjs', 'lib/admin/cli.ts', ...args],
      {
        cwd: root,
        // Next's types require NODE_ENV of every ProcessEnv.
        env: { PATH: process.env.PATH!, HOME: os.homedir(), INFERWATCH_STATE_DIR: stateDir, INFERWATCH_DATA_DIR: dataDir, PORT: String(await freePort()), NODE_ENV: 'production', ...env },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

let testDb: TestDatabase;
beforeAll(async () => {
  testDb = await createTestDatabase('iw_admin_cli');
});
afterAll(async () => {
  const { closeDb } = await import('../../lib/db');
  await closeDb();
  await testDb?.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('npm run admin beside a server on this machine', () => {
  test('refuses to write to the embedded database while the server here runs on PostgreSQL, naming the fix, and writes nothing', async () => {
    const { writeServerFile } = await import('../../lib/admin/server-file');
    const serverDb = new URL(testDb.url);
    serverDb.password = 'secret';
    const remove = writeServerFile(stateDir, { url: 'http://127.0.0.1:1', database: { kind: 'server', url: serverDb.toString() }, adminToken: 'iwc_x' });
    // The server file names a live process that is not the CLI: this test's.
    try {
      const out = await admin(['users', 'create', '--email', 'first@example.com', '--role', 'admin']);
      expect(out.code).toBe(1);
      expect(out.stderr).toContain(`uses PostgreSQL server`);
      expect(out.stderr).toContain(`DATABASE_URL=postgres://postgres@127.0.0.1:5432/${testDb.name} npm run admin -- users create --email first@example.com --role admin`);
      expect(out.stderr).not.toContain('secret');
      expect(out.stdout).not.toContain('created');
      expect(fs.existsSync(dataDir)).toBe(false);
    } finally {
      remove();
    }
  });

  test('with the server’s database it writes there and says which database it wrote to', { timeout: 120_000 }, async () => {
    const { writeServerFile } = await import('../../lib/admin/server-file');
    const remove = writeServerFile(stateDir, { url: 'http://127.0.0.1:1', database: { kind: 'server', url: testDb.url }, adminToken: 'iwc_x' });
    try {
      const out = await admin(['users', 'create', '--email', 'pg@example.com', '--role', 'viewer'], { DATABASE_URL: testDb.url });
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
      expect(out.stdout).toMatch(/^database: PostgreSQL server postgres:\/\/postgres@127\.0\.0\.1:5432\/iw_admin_cli_\w+\ncreated viewer pg@example\.com \(user \d+\)\npassword/);
    } finally {
      remove();
    }
  });

  test('while the server holds the embedded database, the command goes through that server, which stores and audits it', { timeout: 120_000 }, async () => {
    // This process plays the server: it holds the embedded database and serves the admin API as server.ts does.
    process.env.INFERWATCH_STATE_DIR = stateDir;
    process.env.INFERWATCH_DATA_DIR = dataDir;
    delete process.env.DATABASE_URL;
    const { getDb } = await import('../../lib/db');
    const { issueAdminCliToken } = await import('../../lib/auth/admin-cli-token');
    const { writeServerFile } = await import('../../lib/admin/server-file');
    const users = await import('../../app/api/v1/admin/users/route');
    const keys = await import('../../app/api/v1/admin/enrollment-keys/route');
    const db = await getDb();
    const routes: Record<string, (request: Request) => Promise<Response>> = {
      'GET /api/v1/admin/users': users.GET,
      'POST /api/v1/admin/users': users.POST,
      'POST /api/v1/admin/enrollment-keys': keys.POST,
    };
    const server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const handler = routes[`${req.method} ${req.url}`];
      if (!handler) return void res.writeHead(404).end();
      const body = ['GET', 'HEAD'].includes(req.method!) ? undefined : Buffer.concat(chunks);
      const response = await handler(new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, body }));
      res.writeHead(response.status, { 'content-type': 'application/json' }).end(await response.text());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const remove = writeServerFile(stateDir, { url, database: db.target, adminToken: issueAdminCliToken() });
    try {
      const created = await admin(['users', 'create', '--email', 'local@example.com', '--role', 'admin']);
      expect(created.stderr).toBe('');
      expect(created.stdout).toContain(`database: embedded PostgreSQL at ${dataDir} (through the server running here, pid ${process.pid})`);
      expect(created.stdout).toMatch(/created admin local@example\.com \(user \d+\)/);
      const stored = await db.prisma.user.findUnique({ where: { email: 'local@example.com' } });
      expect(stored?.role).toBe('admin');
      const audited = await db.prisma.auditEntry.findFirst({ where: { action: 'user.create' }, orderBy: { id: 'desc' } });
      expect(audited?.actorName).toContain('npm run admin');

      const key = await admin(['keys', 'create', '--name', 'oslo-prod', '--region', 'oslo']);
      expect(key.stdout).toMatch(/created enrollment key \d+ "oslo-prod" for region oslo\nkey \(shown once, store it now\): iwk_/);

      // Without the server file's token the server is not fooled by a forged one.
      fs.writeFileSync(path.join(stateDir, 'server.json'), JSON.stringify({ pid: process.pid, url, database: db.target, adminToken: 'iwc_forged' }));
      const forged = await admin(['users', 'list']);
      expect(forged.code).toBe(1);
      expect(forged.stderr).toContain('invalid, expired or revoked token');
    } finally {
      remove();
      server.close();
    }
  });

  test('with the embedded database locked by a process that left no server file, it says so in one line, no stack trace', { timeout: 60_000 }, async () => {
    // This process holds the embedded database (the test above opened it) and has removed its server file.
    const out = await admin(['users', 'list']);
    expect(out.code).toBe(1);
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(out.stderr).toContain(`is in use by another inferwatch process (pid ${process.pid})`);
    expect(out.stderr).not.toMatch(/\n\s+at /);
  });
});
