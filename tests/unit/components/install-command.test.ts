import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { agentInstallCommand, isLoopbackOrigin, parseLabelsText, shellQuote } from '@/components/settings/install-command';

describe('shellQuote', () => {
  test.each(["it's", 'a b', '$(id)', '`id`', 'x;rm -rf /', 'http://h:3000/a?b=c&d'])('%s survives a real shell unchanged', (text) => {
    expect(execFileSync('sh', ['-c', `printf '%s' ${shellQuote(text)}`], { encoding: 'utf8' })).toBe(text);
  });
});

test('the install command writes the key to the unit’s key file and starts the agent against the server', () => {
  const command = agentInstallCommand({ serverUrl: 'https://iw.example:8443', key: 'iwk_AbC-123_x' });
  expect(command).toBe(
    "printf '%s\\n' iwk_AbC-123_x | sudo install -D -m 0600 /dev/stdin /etc/inferwatch/enroll-key && " +
      'sudo node /usr/local/lib/inferwatch/inferwatch-agent.mjs --server https://iw.example:8443 --enroll-key-file /etc/inferwatch/enroll-key',
  );
});

test('the key part of the command prints exactly the key in a real shell', () => {
  const command = agentInstallCommand({ serverUrl: 'http://x', key: "iwk_a'b" });
  const printPart = command.slice(0, command.indexOf(' | '));
  expect(execFileSync('sh', ['-c', printPart], { encoding: 'utf8' })).toBe("iwk_a'b\n");
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
