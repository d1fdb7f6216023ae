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

test('the install command creates the service user, stores key and server root-only, and starts the unit — no sudo node', () => {
  const command = agentInstallCommand({ serverUrl: 'https://iw.example:8443', key: 'iwk_AbC-123_x' });
  expect(command).toBe(
    ' getent passwd inferwatch >/dev/null || sudo useradd --system --no-create-home --home-dir /var/lib/inferwatch-agent --shell /usr/sbin/nologin inferwatch; ' +
      "printf '%s\\n' iwk_AbC-123_x | sudo install -D -m 0600 -o root -g root /dev/stdin /etc/inferwatch/enroll-key && " +
      "printf 'INFERWATCH_SERVER=%s\\n' https://iw.example:8443 | sudo install -D -m 0644 -o root -g root /dev/stdin /etc/inferwatch/agent.env && " +
      'sudo systemctl enable --now inferwatch-agent',
  );
  expect(command).not.toMatch(/sudo node/);
});

/** Runs the command in a real sh with sudo, getent, useradd, install and systemctl replaced by recorders. */
function runWithRecorders(command: string, userExists: boolean) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'iw-install-'));
  const shim = (name: string, body: string) => fs.writeFileSync(path.join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  shim('sudo', 'exec "$@"');
  shim('getent', `echo "getent $*" >> "${dir}/argv"; exit ${userExists ? 0 : 2}`);
  shim('useradd', `echo "useradd $*" >> "${dir}/argv"`);
  shim('systemctl', `echo "systemctl $*" >> "${dir}/argv"`);
  // The destination is the last argument; what install writes is its stdin.
  shim('install', `echo "install $*" >> "${dir}/argv"; for last; do :; done; cat > "${dir}/$(basename "$last")"`);
  execFileSync('sh', ['-c', command], { env: { PATH: `${dir}:/usr/bin:/bin` } as unknown as NodeJS.ProcessEnv });
  const read = (name: string) => (fs.existsSync(path.join(dir, name)) ? fs.readFileSync(path.join(dir, name), 'utf8') : null);
  const written = { argv: read('argv') ?? '', key: read('enroll-key'), env: read('agent.env') };
  fs.rmSync(dir, { recursive: true });
  return written;
}

test('in a real shell the key reaches only the root-only file, through stdin, never an argument', () => {
  const { argv, key, env } = runWithRecorders(agentInstallCommand({ serverUrl: 'https://iw.example', key: KEY }), false);
  expect(argv).not.toContain('iwk_');
  expect(argv.trim().split('\n')).toEqual([
    'getent passwd inferwatch',
    'useradd --system --no-create-home --home-dir /var/lib/inferwatch-agent --shell /usr/sbin/nologin inferwatch',
    'install -D -m 0600 -o root -g root /dev/stdin /etc/inferwatch/enroll-key',
    'install -D -m 0644 -o root -g root /dev/stdin /etc/inferwatch/agent.env',
    'systemctl enable --now inferwatch-agent',
  ]);
  expect(key).toBe(`${KEY}\n`);
  expect(env).toBe('INFERWATCH_SERVER=https://iw.example\n');
});

test('run again on a host that has the user, it does not try to create it', () => {
  const { argv } = runWithRecorders(agentInstallCommand({ serverUrl: 'https://iw.example', key: 'iwk_x' }), true);
  expect(argv).not.toContain('useradd');
  expect(argv).toContain('systemctl enable --now inferwatch-agent');
});

test('the command and the systemd unit agree: user, key as a credential, settings file, bundle path, hardening', () => {
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
