import { describe, expect, test } from 'vitest';
import { parseAdminCommand, UsageError } from '../../../lib/admin/command';

const NOW = Date.UTC(2026, 0, 1);
const refused = (argv: string[]) => () => parseAdminCommand(argv, NOW);

describe('admin command line', () => {
  test('keys create reads its name, region, repeated labels and expiry', () => {
    expect(parseAdminCommand(['keys', 'create', '--name', 'oslo-prod', '--region=oslo', '--label', 'team=ml', '--label', 'tier=a=b', '--expires', '30d'], NOW)).toEqual({
      command: 'keys create',
      input: { name: 'oslo-prod', region: 'oslo', labels: { team: 'ml', tier: 'a=b' }, expiresAt: new Date(NOW + 30 * 86_400_000), maxHosts: null },
    });
  });

  test('keys create without --expires makes a key that never expires', () => {
    expect(parseAdminCommand(['keys', 'create', '--name', 'n', '--region', 'oslo'], NOW)).toEqual({
      command: 'keys create',
      input: { name: 'n', region: 'oslo', labels: {}, expiresAt: null, maxHosts: null },
    });
  });

  test('keys create --max-hosts caps how many hosts may enroll with the key', () => {
    expect(parseAdminCommand(['keys', 'create', '--name', 'n', '--region', 'oslo', '--max-hosts', '25'], NOW)).toMatchObject({
      command: 'keys create',
      input: { maxHosts: 25 },
    });
  });

  test('keys list, keys revoke ID and hosts revoke-token HOST_ID', () => {
    expect(parseAdminCommand(['keys', 'list'])).toEqual({ command: 'keys list' });
    expect(parseAdminCommand(['keys', 'revoke', '12'])).toEqual({ command: 'keys revoke', keyId: 12 });
    expect(parseAdminCommand(['hosts', 'revoke-token', '7'])).toEqual({ command: 'hosts revoke-token', hostId: 7 });
    expect(parseAdminCommand(['hosts', 'approve-reenroll', '7'])).toEqual({ command: 'hosts approve-reenroll', hostId: 7 });
  });

  test('no arguments or --help asks for the usage', () => {
    expect(parseAdminCommand([])).toEqual({ command: 'help' });
    expect(parseAdminCommand(['--help'])).toEqual({ command: 'help' });
    expect(parseAdminCommand(['keys', 'create', '--help'])).toEqual({ command: 'help' });
  });

  test.each([
    [['keys', 'create', '--name', 'n', '--region', 'oslo', '--expire', '30d'], /Unknown option '--expire'/],
    [['keys', 'create', '--name', 'n', '--region', 'oslo', '--expires', '30x'], /--expires: invalid duration "30x"/],
    [['keys', 'create', '--name', 'n', '--region', 'oslo', '--label', 'team'], /invalid --label "team": use key=value/],
    [['keys', 'create', '--name', 'n', '--region', 'os lo'], /--region: letters, digits/],
    [['keys', 'create', '--name', 'n'], /--region is required/],
    [['keys', 'create', '--name'], /--name <value>' argument missing/],
    [['keys', 'create', '--name', 'n', '--region', 'oslo', 'extra'], /Unexpected argument 'extra'/],
    [['keys', 'list', '--all'], /Unknown option '--all'/],
    [['keys', 'revoke'], /the enrollment key ID is missing/],
    [['keys', 'revoke', 'abc'], /must be a positive whole number, not "abc"/],
    [['keys', 'revoke', '1', '2'], /unexpected argument '2'/],
    [['hosts', 'revoke-token', '7', '--force'], /Unknown option '--force'/],
    [['hosts', 'approve-reenroll'], /HOST_ID is missing/],
    [['keys', 'create', '--name', 'n', '--region', 'oslo', '--max-hosts', '0'], /--max-hosts: Too small/],
    [['keys', 'create', '--name', 'n', '--region', 'oslo', '--max-hosts', 'many'], /--max-hosts: /],
    [['keys', 'delete', '1'], /unknown command "keys delete"/],
  ])('%j is refused: %s', (argv, message) => {
    expect(refused(argv)).toThrow(UsageError);
    expect(refused(argv)).toThrow(message);
  });
});
