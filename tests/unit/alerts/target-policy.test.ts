import { describe, expect, test } from 'vitest';
import { parseCidrList } from '../../../lib/alerts/channels/networks';
import { refusedAddress, refusedUrl, type TargetPolicy } from '../../../lib/alerts/channels/target-policy';
import { parseServerEnvironment } from '../../../lib/server/environment';

const STRICT: TargetPolicy = { allowPrivate: false, allowedNetworks: [] };

describe('where alert channels may send', () => {
  test('loopback, link-local, private, ULA, unspecified, multicast, CGNAT and IPv4-mapped addresses are refused', () => {
    const refused = {
      '127.0.0.1': 'loopback',
      '127.8.9.10': 'loopback',
      '::1': 'loopback',
      '169.254.169.254': 'link-local',
      'fe80::1': 'link-local',
      '10.1.2.3': 'private',
      '172.16.0.1': 'private',
      '172.31.255.255': 'private',
      '192.168.1.1': 'private',
      'fd00::1': 'private',
      'fc00::1': 'private',
      '0.0.0.0': 'unspecified',
      '::': 'unspecified',
      '224.0.0.1': 'multicast',
      'ff02::1': 'multicast',
      '100.64.0.1': 'carrier-grade NAT',
      '100.127.255.254': 'carrier-grade NAT',
      '::ffff:127.0.0.1': 'IPv4-mapped',
      '::ffff:a9fe:a9fe': 'IPv4-mapped',
    };
    for (const [address, kind] of Object.entries(refused)) expect(refusedAddress(address, STRICT), address).toBe(kind);
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111']) expect(refusedAddress(address, STRICT), address).toBeNull();
  });

  test('a URL is checked for literal addresses in every spelling, and for localhost', () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://127.0.0.1:9/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://[::1]:8080/',
      'http://[::ffff:127.0.0.1]/',
      'http://[fd12::3]/',
      'http://localhost:9093/',
      'http://LOCALHOST./',
      'http://am.localhost/',
      'http://0/',
    ]) {
      expect(refusedUrl(url, STRICT), url).not.toBeNull();
    }
    expect(refusedUrl('https://hooks.slack.com/services/T/B/X', STRICT)).toBeNull();
    expect(refusedUrl('http://93.184.216.34/', STRICT)).toBeNull();
  });

  test('an operator allows them all, or the networks listed', () => {
    expect(refusedUrl('http://127.0.0.1:9/', { allowPrivate: true, allowedNetworks: [] })).toBeNull();
    const listed: TargetPolicy = { allowPrivate: false, allowedNetworks: parseCidrList('10.20.0.0/16, fd00:1::/64,192.168.5.7') };
    expect(refusedAddress('10.20.3.4', listed)).toBeNull();
    expect(refusedAddress('fd00:1::9', listed)).toBeNull();
    expect(refusedAddress('192.168.5.7', listed)).toBeNull();
    expect(refusedAddress('10.21.0.1', listed)).toBe('private');
    expect(refusedAddress('192.168.5.8', listed)).toBe('private');
    expect(refusedUrl('http://localhost/', listed)).not.toBeNull();
    expect(refusedUrl('http://localhost:9093/', { allowPrivate: false, allowedNetworks: parseCidrList('127.0.0.0/8') })).toBeNull();
  });

  test('the environment variables are parsed, and bad ranges refused by name', () => {
    expect(parseServerEnvironment({}).alertTargets).toEqual({ allowPrivate: false, allowedNetworks: [] });
    const env = parseServerEnvironment({ INFERWATCH_ALERT_ALLOW_PRIVATE: '1', INFERWATCH_ALERT_ALLOWED_NETWORKS: '10.0.0.0/8,fd00::/8' });
    expect(env.alertTargets).toEqual({
      allowPrivate: true,
      allowedNetworks: [
        { address: '10.0.0.0', prefix: 8, family: 'ipv4' },
        { address: 'fd00::', prefix: 8, family: 'ipv6' },
      ],
    });
    for (const bad of ['10.0.0.0/33', 'example.com', '10.0.0.0/8/1', '10.0.0.0/x']) {
      expect(() => parseServerEnvironment({ INFERWATCH_ALERT_ALLOWED_NETWORKS: bad }), bad).toThrow(/INFERWATCH_ALERT_ALLOWED_NETWORKS/);
    }
  });
});
