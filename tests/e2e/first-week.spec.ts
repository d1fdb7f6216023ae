import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test, type Page } from '@playwright/test';
import type { FleetPage } from '../../lib/protocol/read-api/fleet';
import { DEMO_HOST_COUNT } from '../../lib/demo/fleet';
import { freePort } from '../support/free-port';
import { installStandIns, installedUnitCommand } from '../support/install-sandbox';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

// The path a new team walks after the demo, with the README's own commands, on servers of this spec's own (the suite's
// shared server cannot be moved to another database): `npm start`, stop, the same machine on a PostgreSQL database,
// the first admin from the shell, sign-in, a viewer, a new password, a second agent from the Settings command.
const run = promisify(execFile);
const root = process.cwd();

interface Server {
  url: string;
  child: ChildProcess;
  log: string[];
}

async function npmStart(port: number, env: Record<string, string>): Promise<Server> {
  const log: string[] = [];
  const child = spawn('npm', ['start'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...env },
  });
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => log.push(...chunk.toString().split('\n').filter(Boolean)));
  const url = `http://127.0.0.1:${port}`;
  await expect
    .poll(async () => (child.exitCode !== null ? `exited: ${log.join('\n')}` : ((await fetch(`${url}/api/health`).catch(() => null))?.status ?? 0)), {
      timeout: 300_000,
      message: 'the server answers /api/health',
    })
    .toBe(200);
  return { url, child, log };
}

const groupAlive = (pid: number) => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Stops the server as Ctrl-C does, and waits for every process of it: npm exits before the server has shut down. */
async function stop(server: Server): Promise<void> {
  if (!groupAlive(server.child.pid!)) return;
  process.kill(-server.child.pid!, 'SIGTERM');
  await expect.poll(() => groupAlive(server.child.pid!), { timeout: 120_000, message: 'the server shuts down' }).toBe(false);
}

async function fleetOf(server: Server): Promise<FleetPage['hosts']> {
  // Loopback: the server signs this request in as the local admin.
  const response = await fetch(`${server.url}/api/v1/fleet?limit=500`);
  return ((await response.json()) as FleetPage).hosts;
}

/** `npm run admin -- …` as the README says to run it, with the environment given. */
async function admin(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return run('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: root, env: { ...process.env, ...env } })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }))
    .catch((err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }));
}

/**
 * Runs the Settings page's one-line install exactly as shown: the server's install.sh, into `scratch` as its root
 * (INFERWATCH_ROOT), with stand-ins for what a CI machine must not touch (sudo, useradd, systemd); then runs the
 * installed unit's command line once, as systemd would start it.
 */
async function runInstallCommand(command: string, scratch: string): Promise<string[]> {
  fs.mkdirSync(scratch, { recursive: true });
  const standIns = installStandIns(scratch);
  const bin = standIns.path.split(':')[0]!;
  fs.writeFileSync(path.join(bin, 'sudo'), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
  await run('sh', ['-c', command], { env: { ...process.env, PATH: standIns.path, INFERWATCH_ROOT: scratch } });
  const unit = installedUnitCommand(scratch);
  await run(unit.argv[0]!, [...unit.argv.slice(1), '--once'], { env: { ...process.env, ...unit.env } });
  return standIns.calls();
}

/** Every page of the dashboard, each checked for errors in the browser's console. */
async function visitEveryPage(page: Page, baseUrl: string, hostId: number): Promise<string[]> {
  const errors: string[] = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(`${page.url()}: ${message.text()}`));
  page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
  for (const pathname of ['/', `/hosts/${hostId}`, '/findings', '/alerts', '/regions', '/compare', '/settings']) {
    await page.goto(`${baseUrl}${pathname}`);
    await expect(page.getByRole('main')).toBeVisible();
    await page.waitForLoadState('networkidle');
  }
  return errors;
}

test.describe.configure({ timeout: 900_000 });

let scratch: string;
let pgDb: TestDatabase | undefined;
const servers: Server[] = [];
test.beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-first-week-'));
});
test.afterAll(async () => {
  for (const server of servers) await stop(server);
  await pgDb?.drop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

test('the first week: quick start, then the same machine on PostgreSQL with its own agent, the demo, users and a second agent', async ({ page }) => {
  const stateDir = path.join(scratch, 'state');
  const embedded = { INFERWATCH_STATE_DIR: stateDir, INFERWATCH_DATA_DIR: path.join(stateDir, 'data'), DATABASE_URL: '', INFERWATCH_LOCAL_AGENT_INTERVAL: '2' };

  // 1. The quick start: the embedded database, this machine's agent and the demo fleet.
  // One address throughout, as a team keeps it: the local agent's token is for this server, whatever database it has.
  const port = await freePort();
  const quickStart = await npmStart(port, embedded);
  servers.push(quickStart);
  await expect.poll(async () => (await fleetOf(quickStart)).some((h) => h.hostname === os.hostname() && h.status === 'ok'), { timeout: 120_000 }).toBe(true);
  // A second `npm start` on the same port says so in one line.
  const second = await run('npm', ['start'], { cwd: root, env: { ...process.env, ...embedded, PORT: String(port), HOST: '127.0.0.1' } }).catch(
    (err: { code: number; stderr: string }) => err,
  );
  expect(second).toMatchObject({ code: 1, stderr: expect.stringContaining(`port ${port} on 127.0.0.1 is taken`) });
  expect((second as { stderr: string }).stderr).not.toContain('uncaughtException');
  await stop(quickStart);

  // 2. The team's database: the same state dir (the local agent keeps its token for a database that is gone).
  pgDb = await createTestDatabase('iw_first_week');
  const onPostgres = { ...embedded, DATABASE_URL: pgDb.url, INFERWATCH_DEMO: '1' };
  const server = await npmStart(port, onPostgres);
  servers.push(server);

  // 3. The first admin, by the README's words — first without the server's DATABASE_URL, the mistake the CLI refuses.
  const createAdmin = ['users', 'create', '--email', 'you@example.com', '--role', 'admin'];
  const mistaken = await admin(createAdmin, { ...embedded, PORT: String(port) });
  expect(mistaken.code).toBe(1);
  expect(mistaken.stderr).toContain('DATABASE_URL=');
  const created = await admin(createAdmin, { ...onPostgres, PORT: String(port) });
  expect(created.stderr).toBe('');
  expect(created.stdout).toContain(`database: PostgreSQL server postgres://postgres@127.0.0.1:5432/${pgDb.name}`);
  const password = /password \(shown once; change it after signing in\): (\S+)/.exec(created.stdout)![1]!;

  // 4. Sign in, invite a viewer, change the password.
  await page.goto(`${server.url}/login?next=/settings`);
  const signIn = page.getByRole('form', { name: 'Sign in' });
  await signIn.getByLabel('Email').fill('you@example.com');
  await signIn.getByLabel('Password').fill(password);
  await signIn.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page.getByTestId('session-menu')).toContainText('admin');

  const invite = page.getByRole('form', { name: 'Create a user' });
  await invite.getByLabel('Email').fill('viewer@example.com');
  await invite.getByLabel('Role').selectOption('viewer');
  await invite.getByRole('button', { name: 'Create user' }).click();
  await expect(page.getByTestId('generated-password-value')).toHaveText(/^[\w-]{24}$/);
  await page.getByRole('button', { name: 'Done, hide the password' }).click();
  await expect(page.locator('[data-user-email="viewer@example.com"]')).toContainText('viewer');

  const change = page.getByRole('form', { name: 'Change your password' });
  await change.getByLabel('Current password').fill(password);
  await change.getByLabel('New password', { exact: true }).fill('the team server passphrase');
  await change.getByLabel('New password again').fill('the team server passphrase');
  await change.getByRole('button', { name: 'Change password' }).click();
  await expect(page.getByTestId('password-changed')).toContainText('Password changed');

  // 5. A second agent, enrolled with the command the Settings page gives for a new key.
  const newKey = page.getByRole('form', { name: 'Create an enrollment key' });
  await newKey.getByLabel('Name').fill('oslo-prod');
  await newKey.getByLabel('Region').fill('oslo-prod');
  await newKey.getByRole('button', { name: 'Create key' }).click();
  const command = (await page.getByTestId('install-command').textContent())!;
  expect(command).toContain(`${server.url}/install.sh`);
  expect(command).not.toMatch(/sudo node/);
  const secondHost = path.join(scratch, 'second-host');
  const calls = await runInstallCommand(command, secondHost);
  expect(calls.find((call) => call.startsWith('useradd'))).toContain('--system');
  expect((fs.statSync(path.join(secondHost, 'etc/inferwatch/enroll-key')).mode & 0o777).toString(8)).toBe('600');

  // 6. On the new database: this machine's own agent (enrolled again by itself), every demo host, the second agent.
  const everyDemoHost = DEMO_HOST_COUNT;
  await expect
    .poll(
      async () => {
        const hosts = await fleetOf(server);
        return {
          local: hosts.some((h) => h.hostname === os.hostname() && h.region === 'local' && h.status === 'ok'),
          demo: hosts.filter((h) => h.labels.demo === 'true').length,
          second: hosts.some((h) => h.region === 'oslo-prod' && h.lastSeenAt !== null),
        };
      },
      { timeout: 300_000, message: 'the local agent, the demo fleet and the second agent report on PostgreSQL' },
    )
    .toEqual({ local: true, demo: everyDemoHost, second: true });
  expect(server.log.filter((line) => line.includes('host token rejected')).length).toBeLessThanOrEqual(1);
  expect(server.log.some((line) => line.includes('enrolled again'))).toBe(true);

  // 7. Every page of the dashboard, signed in, without an error in the console.
  const local = (await fleetOf(server)).find((h) => h.hostname === os.hostname() && h.region === 'local')!;
  expect(await visitEveryPage(page, server.url, local.id)).toEqual([]);
});
