import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '@playwright/test';
import type { FleetPage } from '../../lib/protocol/read-api/fleet';
import { APP_VERSION as AGENT_VERSION } from '../../lib/version';
import { createEnrollmentKey } from '../support/e2e-fleet';
import { installStandIns, installedUnitCommand, runScript } from '../support/install-sandbox';

// A new host as the Settings page's one-liner sets it up, against the suite's running server: its public install.sh
// into a scratch root, with stand-ins only for useradd and systemd (and chown when not root).
const run = promisify(execFile);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A proxy in front of the server that flips one byte of the agent bundle, as a broken mirror or an attacker would. */
async function tamperingProxy(target: string): Promise<{ url: string; close(): void }> {
  const server = http.createServer((req, res) => {
    void fetch(`${target}${req.url}`).then(async (upstream) => {
      const body = Buffer.from(await upstream.arrayBuffer());
      if (req.url === '/agent/inferwatch-agent.mjs') body.writeUInt8(body.readUInt8(body.length - 2) ^ 1, body.length - 2);
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

let scratch: string;
test.beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-install-e2e-'));
});
test.afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

test('the server publishes install.sh, the agent bundle and its SHA-256 without sign-in, cacheable only with revalidation', async ({ baseURL }) => {
  const script = await fetch(`${baseURL}/install.sh`);
  expect(script.status).toBe(200);
  expect(script.headers.get('content-type')).toBe('text/x-shellscript; charset=utf-8');
  expect(script.headers.get('cache-control')).toBe('public, no-cache');
  const text = await script.text();
  expect(text).toMatch(/^#!\/bin\/sh\n/);
  expect(text).toContain('\nset -eu\n');
  expect(text).toContain('\nExecStart=/usr/bin/node --lite-mode');

  const bundle = await fetch(`${baseURL}/agent/inferwatch-agent.mjs`);
  expect(bundle.status).toBe(200);
  expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  const bytes = Buffer.from(await bundle.arrayBuffer());
  expect(bundle.headers.get('x-checksum-sha256')).toBe(sha256(bytes));
  expect(await (await fetch(`${baseURL}/agent/inferwatch-agent.mjs.sha256`)).text()).toBe(`${sha256(bytes)}  inferwatch-agent.mjs\n`);

  const again = await fetch(`${baseURL}/agent/inferwatch-agent.mjs`, { headers: { 'If-None-Match': bundle.headers.get('etag')! } });
  expect(again.status).toBe(304);
  expect(await again.text()).toBe('');
});

test('the served install.sh refuses a tampered bundle, then installs the real one; the installed unit enrolls and reports, and --upgrade brings a changed file back to the server\'s build', async ({ page, request, baseURL }) => {
  const region = `install-${Date.now().toString(36)}`;
  const key = await createEnrollmentKey(request, { name: region, region });
  const script = path.join(scratch, 'install.sh');
  fs.writeFileSync(script, Buffer.from(await (await fetch(`${baseURL}/install.sh`)).arrayBuffer()));
  expect(fs.readFileSync(script, 'utf8')).not.toContain(key);

  const tamperedRoot = path.join(scratch, 'tampered');
  fs.mkdirSync(tamperedRoot);
  const proxy = await tamperingProxy(baseURL!);
  const standInsTampered = installStandIns(path.join(scratch, 'tampered-bin'));
  const refused = await runScript(script, ['--server', proxy.url, '--root', tamperedRoot], { stdin: `${key}\n`, env: { PATH: standInsTampered.path } });
  proxy.close();
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/the downloaded agent's SHA-256 is [0-9a-f]{64} but the server publishes [0-9a-f]{64}: nothing installed/);
  expect(fs.readdirSync(tamperedRoot)).toEqual([]);

  const hostRoot = path.join(scratch, 'host');
  fs.mkdirSync(hostRoot);
  const standIns = installStandIns(path.join(scratch, 'host-bin'));
  const installed = await runScript(script, ['--server', baseURL!, '--root', hostRoot], { stdin: `${key}\n`, env: { PATH: standIns.path } });
  expect(installed.stderr).toContain(`agent ${AGENT_VERSION} installed under ${hostRoot}`);
  expect(installed.code).toBe(0);
  expect(standIns.calls()).toContain(`systemctl --root=${hostRoot} enable inferwatch-agent.service`);

  // What systemd would start, once: the installed bundle, the key from the root-only file, the server from agent.env.
  const unit = installedUnitCommand(hostRoot);
  await run(unit.argv[0]!, [...unit.argv.slice(1), '--once'], { env: { ...process.env, ...unit.env } });

  const fleet = (await (await fetch(`${baseURL}/api/v1/fleet?region=${region}`)).json()) as FleetPage;
  expect(fleet.hosts.map((h) => ({ hostname: h.hostname, region: h.region, reported: h.lastSeenAt !== null, agentVersion: h.agentVersion }))).toEqual([
    { hostname: os.hostname(), region, reported: true, agentVersion: AGENT_VERSION },
  ]);

  // --upgrade against this server: an installed file that is not the server's build is replaced by it; then nothing to do.
  const installedBundle = unit.argv.find((arg) => arg.endsWith('inferwatch-agent.mjs'))!;
  fs.appendFileSync(installedBundle, '\n// an older build\n');
  const upgrade = () => run(process.execPath, [installedBundle, '--upgrade', '--server', baseURL!]);
  expect((await upgrade()).stdout).toContain(`upgraded ${installedBundle} from ${AGENT_VERSION} to ${AGENT_VERSION}`);
  const served = Buffer.from(await (await fetch(`${baseURL}/agent/inferwatch-agent.mjs`)).arrayBuffer());
  expect(sha256(fs.readFileSync(installedBundle))).toBe(sha256(served));
  expect((await upgrade()).stdout).toContain(`${installedBundle} is already the server's agent (${AGENT_VERSION})`);

  // The fleet table and the host page name the agent's version.
  await page.goto(`/?region=${region}`);
  const row = page.locator(`[data-host-id="${fleet.hosts[0]!.id}"]`);
  await expect(row.locator('[data-metric="agent-version"]')).toHaveText(AGENT_VERSION);
  await page.goto(`/hosts/${fleet.hosts[0]!.id}`);
  await expect(page.getByTestId('agent-version')).toHaveText(`· agent ${AGENT_VERSION}`);
});
