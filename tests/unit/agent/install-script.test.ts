import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { readInstallScript, renderInstallScript } from '@/lib/agent-delivery/install-script';
import { installStandIns, runScript } from '../../support/install-sandbox';

const repoRoot = path.resolve(import.meta.dirname, '../../..');
const KEY = 'iwk_unit-test-key_0123456789';
const AGENT_REL = 'usr/local/lib/inferwatch/inferwatch-agent.mjs';

describe('renderInstallScript', () => {
  test('puts the unit in place of the placeholder line, once', () => {
    const script = renderInstallScript("a\ncat <<'INFERWATCH_UNIT'\n@INFERWATCH_UNIT@\nINFERWATCH_UNIT\nb", '[Unit]\nDescription=x\n\n');
    expect(script).toBe("a\ncat <<'INFERWATCH_UNIT'\n[Unit]\nDescription=x\nINFERWATCH_UNIT\nb");
  });

  test('refuses a template without the placeholder and a unit that would end the here-document early', () => {
    expect(() => renderInstallScript('no placeholder', '[Unit]')).toThrow(/@INFERWATCH_UNIT@ exactly once/);
    expect(() => renderInstallScript('@INFERWATCH_UNIT@', '[Unit]\nINFERWATCH_UNIT\n')).toThrow(/must not hold the line INFERWATCH_UNIT/);
  });

  test('the served script carries the repository unit verbatim', async () => {
    const unit = fs.readFileSync(path.join(repoRoot, 'agent/inferwatch-agent.service'), 'utf8').trimEnd();
    expect(await readInstallScript(repoRoot)).toContain(`<<'INFERWATCH_UNIT'\n${unit}\nINFERWATCH_UNIT\n`);
  });
});

/** A stand-in server: a tiny agent that answers --version, and the checksum it publishes (or a wrong one). */
let served: { bundle: string; checksum: string };
let server: http.Server;
let serverUrl: string;
let script: string;
let work: string;

const AGENT = "if (process.argv.includes('--version')) console.log('9.9.9');\n";
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/agent/inferwatch-agent.mjs') return void res.end(served.bundle);
    if (req.url === '/agent/inferwatch-agent.mjs.sha256') return void res.end(served.checksum);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-install-sh-'));
  script = path.join(work, 'install.sh');
  fs.writeFileSync(script, await readInstallScript(repoRoot));
});
afterAll(() => {
  server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

let root: string;
let standIns: ReturnType<typeof installStandIns>;
beforeEach(() => {
  served = { bundle: AGENT, checksum: `${sha256(AGENT)}  inferwatch-agent.mjs\n` };
  const dir = fs.mkdtempSync(path.join(work, 'case-'));
  root = path.join(dir, 'root');
  fs.mkdirSync(root);
  standIns = installStandIns(dir);
});

const install = (args: string[], stdin = `${KEY}\n`) => runScript(script, args, { stdin, env: { PATH: standIns.path } });
const mode = (rel: string) => (fs.statSync(path.join(root, rel)).mode & 0o777).toString(8);

test('installs the verified agent, the unit, the root-only key and the settings under --root, and enables the unit', async () => {
  const result = await install(['--server', `${serverUrl}/`, '--root', root]);
  expect(result).toMatchObject({ code: 0, stderr: expect.stringContaining(`agent 9.9.9 installed under ${root}`) });
  expect(fs.readFileSync(path.join(root, AGENT_REL), 'utf8')).toBe(AGENT);
  expect(fs.readFileSync(path.join(root, 'etc/inferwatch/enroll-key'), 'utf8')).toBe(`${KEY}\n`);
  expect(fs.readFileSync(path.join(root, 'etc/inferwatch/agent.env'), 'utf8')).toBe(`INFERWATCH_SERVER=${serverUrl}\n`);
  expect({ agent: mode(AGENT_REL), key: mode('etc/inferwatch/enroll-key'), env: mode('etc/inferwatch/agent.env') }).toEqual({ agent: '755', key: '600', env: '644' });
  // The service user must reach the bundle through the folders made for it.
  expect([mode('usr/local'), mode('usr/local/lib/inferwatch'), mode('etc/inferwatch')]).toEqual(['755', '755', '755']);
  const unit = fs.readFileSync(path.join(root, 'etc/systemd/system/inferwatch-agent.service'), 'utf8');
  expect(unit).toMatch(new RegExp(`^ExecStart=${process.execPath.replace(/[.]/g, '\\.')} --lite-mode `, 'm'));
  expect(unit).toContain('NoNewPrivileges=true');
  expect(standIns.calls().filter((call) => !call.startsWith('chown'))).toEqual([
    `useradd --root ${root} --system --no-create-home --home-dir /var/lib/inferwatch-agent --shell /usr/sbin/nologin inferwatch`,
    `systemctl --root=${root} enable inferwatch-agent.service`,
  ]);
  expect(standIns.calls().join('\n')).not.toContain(KEY);
  expect(fs.readdirSync(path.join(root, 'etc/inferwatch')).sort()).toEqual(['agent.env', 'enroll-key']);
});

test('a re-install keeps the other agent settings and an existing service user', async () => {
  fs.mkdirSync(path.join(root, 'etc/inferwatch'), { recursive: true });
  fs.writeFileSync(path.join(root, 'etc/inferwatch/agent.env'), 'INFERWATCH_SERVER=http://old.example\nINFERWATCH_SCRAPE=vllm=http://127.0.0.1:8000/metrics\n');
  fs.writeFileSync(path.join(root, 'etc/passwd'), 'root:x:0:0::/root:/bin/sh\ninferwatch:x:999:999::/var/lib/inferwatch-agent:/usr/sbin/nologin\n');
  expect((await install(['--server', serverUrl, '--root', root])).code).toBe(0);
  expect(fs.readFileSync(path.join(root, 'etc/inferwatch/agent.env'), 'utf8')).toBe(
    `INFERWATCH_SCRAPE=vllm=http://127.0.0.1:8000/metrics\nINFERWATCH_SERVER=${serverUrl}\n`,
  );
  expect(standIns.calls().some((call) => call.startsWith('useradd'))).toBe(false);
});

test('a bundle whose SHA-256 is not the one the server publishes is not installed', async () => {
  served.bundle = `${AGENT}// changed on the way\n`;
  const result = await install(['--server', serverUrl, '--root', root]);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`the downloaded agent's SHA-256 is ${sha256(served.bundle)} but the server publishes ${sha256(AGENT)}: nothing installed`);
  expect(fs.readdirSync(root)).toEqual([]);
  expect(standIns.calls()).toEqual([]);
});

test('an agent that does not run is not installed', async () => {
  served = { bundle: 'process.exit(9)\n', checksum: `${sha256('process.exit(9)\n')}  inferwatch-agent.mjs\n` };
  const result = await install(['--server', serverUrl, '--root', root]);
  expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining('the downloaded agent does not run: nothing installed') });
  expect(fs.readdirSync(root)).toEqual([]);
});

test('a server that cannot be reached is named', async () => {
  const result = await install(['--server', 'http://127.0.0.1:9', '--root', root]);
  expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining('could not download http://127.0.0.1:9/agent/inferwatch-agent.mjs') });
});

test.each([
  ['no --server', [], `${KEY}\n`, 2, '--server URL is required'],
  ['--server without a value', ['--server'], `${KEY}\n`, 2, 'usage:'],
  ['a server that is not http(s)', ['--server', 'ftp://iw.example'], `${KEY}\n`, 1, '--server must be an http:// or https:// URL, not: ftp://iw.example'],
  ['an unknown argument', ['--server', 'https://iw.example', '--key', 'x'], `${KEY}\n`, 2, 'unknown argument: --key'],
  ['no key on stdin', ['--server', 'https://iw.example'], '', 1, 'no enrollment key on stdin'],
  ['something else on stdin', ['--server', 'https://iw.example'], 'hunter2\n', 1, 'stdin does not hold an enrollment key'],
])('refuses %s with a clear message and installs nothing', async (_name, args, stdin, code, message) => {
  const result = await install(['--root', root, ...args], stdin);
  expect(result.code).toBe(code);
  expect(result.stderr).toContain(message);
  expect(fs.readdirSync(root)).toEqual([]);
});

test('a --root that is not a directory is refused', async () => {
  const result = await install(['--server', serverUrl, '--root', path.join(root, 'missing')]);
  expect(result).toMatchObject({ code: 1, stderr: expect.stringContaining('is not a directory') });
});
