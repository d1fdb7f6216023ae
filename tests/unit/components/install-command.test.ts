import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { AGENT_ENV_PATH, AGENT_PATH, ENROLL_KEY_PATH, SERVICE_USER, agentInstallCommand, isLoopbackOrigin, parseLabelsText, shellQuote } from '@/components/settings/install-command';

describe('shellQuote', () => {
  test.each(["it's", 'a b', '$(id)', '`id`', 'x;rm -rf /', 'http://h:3000/a?b=c&d'])('%s survives a real shell unchanged', (text) => {
    expect(execFileSync('sh', ['-c', `printf '%s' ${shellQuote(text)}`], { encoding: 'utf8' })).toBe(text);
  });
});

const KEY = "iwk_a'b$(id)";
const UNIT = fs.readFileSync(path.join(import.meta.dirname, '../../../agent/inferwatch-agent.service'), 'utf8');

test('the install command fetches this server\'s install.sh into a temporary file and pipes the key to it as root — no sudo node', () => {
  const command = agentInstallCommand({ serverUrl: 'https://iw.example:8443/', key: 'iwk_AbC-123_x' });
  expect(command).toBe(
    ` (f=$(mktemp) && trap 'rm -f "$f"' EXIT && curl -fsSL https://iw.example:8443/install.sh -o "$f" && ` +
      `printf '%s\\n' iwk_AbC-123_x | sudo sh "$f" --server https://iw.example:8443)`,
  );
  expect(command).not.toMatch(/sudo node/);
});

/**
 * Runs the command in a real sh with sudo and curl replaced: curl "downloads" a script that records its arguments, its
 * stdin and its own path, and exits with `exitCode`.
 */
function runWithRecorders(command: string, exitCode = 0) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-install-'));
  const shim = (name: string, body: string) => fs.writeFileSync(path.join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'served.sh'), `echo "$0 $*" > "${dir}/script-argv"; cat > "${dir}/script-stdin"; exit ${exitCode}\n`);
  shim('sudo', `echo "sudo $*" >> "${dir}/argv"; exec "$@"`);
  shim('curl', `echo "curl $*" >> "${dir}/argv"; for last; do :; done; cp "${dir}/served.sh" "$last"`);
  let status = 0;
  try {
    execFileSync('sh', ['-c', command], { env: { PATH: `${dir}:/usr/bin:/bin`, TMPDIR: dir } as unknown as NodeJS.ProcessEnv });
  } catch (err) {
    status = (err as { status: number }).status;
  }
  const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
  const scriptPath = read('script-argv').split(' ')[0]!;
  const result = { status, argv: read('argv'), scriptArgv: read('script-argv'), stdin: read('script-stdin'), scriptLeft: fs.existsSync(scriptPath) };
  fs.rmSync(dir, { recursive: true });
  return result;
}

test('in a real shell the key reaches install.sh only on its stdin, never as an argument, and the download is removed', () => {
  const { status, argv, scriptArgv, stdin, scriptLeft } = runWithRecorders(agentInstallCommand({ serverUrl: 'https://iw.example', key: KEY }));
  expect(status).toBe(0);
  expect(argv + scriptArgv).not.toContain('iwk_');
  expect(argv).toMatch(/^curl -fsSL https:\/\/iw\.example\/install\.sh -o \S+\nsudo sh \S+ --server https:\/\/iw\.example\n$/);
  expect(scriptArgv).toMatch(/ --server https:\/\/iw\.example\n$/);
  expect(stdin).toBe(`${KEY}\n`);
  expect(scriptLeft).toBe(false);
});

test('a failing install.sh makes the whole line fail, and its download is still removed', () => {
  const { status, scriptLeft } = runWithRecorders(agentInstallCommand({ serverUrl: 'https://iw.example', key: 'iwk_x' }), 3);
  expect(status).toBe(3);
  expect(scriptLeft).toBe(false);
});

test('the settings paths are the ones install.sh writes and the systemd unit reads: user, key as a credential, settings file, bundle', () => {
  const INSTALL = fs.readFileSync(path.join(import.meta.dirname, '../../../agent/install.sh'), 'utf8');
  expect(INSTALL).toContain(`SERVICE_USER=${SERVICE_USER}\n`);
  expect(INSTALL).toContain(`AGENT_REL=${AGENT_PATH.slice(1)}\n`);
  expect(INSTALL).toContain(`KEY_REL=${ENROLL_KEY_PATH.slice(1)}\n`);
  expect(INSTALL).toContain(`ENV_REL=${AGENT_ENV_PATH.slice(1)}\n`);
  expect(UNIT).toContain(`User=${SERVICE_USER}\n`);
  expect(UNIT).toContain(`LoadCredential=enroll-key:${ENROLL_KEY_PATH}\n`);
  expect(UNIT).toContain(`EnvironmentFile=-${AGENT_ENV_PATH}\n`);
  const execStart = /^ExecStart=(.*)$/m.exec(UNIT)![1]!;
  expect(execStart).toMatch(/^\/usr\/bin\/node /);
  expect(execStart.split(' ')).toContain(AGENT_PATH);
  expect(execStart).toMatch(/--enroll-key-file \$\{CREDENTIALS_DIRECTORY\}\/enroll-key$/);
  expect(UNIT).toContain('NoNewPrivileges=true\n');
  expect(UNIT).toContain('CapabilityBoundingSet=\n');
});

test.each([
  ['http://127.0.0.1:3000', true],
  ['http://localhost:3000', true],
  ['http://[::1]:3000', true],
  ['https://iw.example', false],
  ['http://10.0.0.5:3000', false],
  ['not a url', false],
])('isLoopbackOrigin(%s) is %s', (origin, expected) => {
  expect(isLoopbackOrigin(origin)).toBe(expected);
});

test('labels are key=value or key:value separated by commas; anything else is named', () => {
  expect(parseLabelsText(' team=ml, env:prod ,')).toEqual({ labels: { team: 'ml', env: 'prod' } });
  expect(parseLabelsText('')).toEqual({ labels: {} });
  expect(parseLabelsText('team=ml, oops')).toEqual({ error: '"oops" is not key=value (keys: letters, digits, _ . -)' });
});
