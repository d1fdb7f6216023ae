import { describe, expect, test } from 'vitest';
import { defaultsOf, emptyFleet, hostFacts, ruleContext } from '../../../tests/support/findings-facts';
import { agentOutdated } from './agent.outdated';

const judge = (agentVersion: string | null, serverVersion: string, thresholds = defaultsOf(agentOutdated.defaults)) =>
  agentOutdated.evaluate(hostFacts({ agentVersion }), thresholds, ruleContext([], emptyFleet({ serverVersion })));

describe('agent.outdated', () => {
  test.each([
    ['the same version', '0.1.0', '0.1.0'],
    ['a newer agent', '0.2.0', '0.1.0'],
    ['a build of the same release', '0.1.0+demo', '0.1.0'],
    ['an agent version that is not semver', 'dev', '0.1.0'],
    ['a server version that is not semver', '0.1.0', 'unknown'],
  ])('%s raises nothing', (_name, agent, server) => {
    expect(judge(agent, server)).toEqual([]);
  });

  test('a host that never reported its version raises nothing', () => {
    expect(judge(null, '0.1.0')).toEqual([]);
  });

  test('an agent a minor release behind is a warning naming both versions and the upgrade command', () => {
    const [v] = judge('0.0.9', '0.1.0');
    expect(v).toMatchObject({ severity: 'warning', value: null });
    expect(v!.message).toBe(
      "The agent is 0.0.9, older than this server's 0.1.0: it misses the collectors and fixes of the releases between, and findings that need them cannot judge this host.",
    );
    expect(v!.remedy).toContain('/usr/local/lib/inferwatch/inferwatch-agent.mjs --upgrade && sudo systemctl restart inferwatch-agent');
    expect(v!.evidence.values).toEqual([
      { label: 'agent version', value: '0.0.9' },
      { label: 'server version', value: '0.1.0' },
    ]);
  });

  test.each([
    { name: 'a patch behind', agent: '0.1.0', server: '0.1.1', severity: 'info' },
    { name: 'a pre-release of the server\'s release', agent: '0.2.0-rc.1', server: '0.2.0', severity: 'info' },
    { name: 'an older pre-release', agent: '0.2.0-rc.1', server: '0.2.0-rc.2', severity: 'info' },
    { name: 'two minors behind', agent: '1.1.4', server: '1.3.0', severity: 'warning' },
    { name: 'a major behind, even at a higher minor', agent: '1.9.0', server: '2.0.0', severity: 'warning' },
    { name: 'numeric, not text, order', agent: '0.9.0', server: '0.10.0', severity: 'warning' },
  ])('$name ($agent against $server) is $severity', ({ agent, server, severity }) => {
    expect(judge(agent, server).map((v) => v.severity)).toEqual([severity]);
  });

  test('a higher minorsBehindForWarning keeps a minor release behind at info; a major behind stays a warning', () => {
    const lenient = { minorsBehindForWarning: 3 };
    expect(judge('1.1.0', '1.3.0', lenient).map((v) => v.severity)).toEqual(['info']);
    expect(judge('1.0.0', '1.3.0', lenient).map((v) => v.severity)).toEqual(['warning']);
    expect(judge('1.9.0', '2.0.0', lenient).map((v) => v.severity)).toEqual(['warning']);
  });
});
