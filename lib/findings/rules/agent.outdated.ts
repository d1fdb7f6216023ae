import { compareReleaseVersions, parseReleaseVersion } from '../version-order';
import { defineHostRule } from '../types';

/**
 * An agent older than the one this server serves (its own version: `npm run build` bundles the agent of the same
 * release). Agents outside the wire protocol's range cannot be judged here: ingest refuses their reports, and they
 * show as agent.stopped-reporting. An agent newer than the server, or one whose version is not semver, is not judged.
 */
export const agentOutdated = defineHostRule({
  id: 'agent.outdated',
  title: 'Agent older than the server',
  category: 'agent',
  severities: ['info', 'warning'],
  defaults: {
    minorsBehindForWarning: {
      value: 1,
      unit: 'minor versions',
      description: 'minor releases behind the server that make it a warning (a major release behind always does; patches behind stay info)',
    },
  },
  openAfterMs: 0,
  needs: 'none',
  evaluate(facts, t, ctx) {
    if (facts.agentVersion === null) return [];
    const agent = parseReleaseVersion(facts.agentVersion);
    const server = parseReleaseVersion(ctx.fleet.serverVersion);
    if (!agent || !server || compareReleaseVersions(agent, server) >= 0) return [];
    const minorsBehind = agent.major === server.major ? server.minor - agent.minor : Infinity;
    const severity = minorsBehind >= Math.max(1, t.minorsBehindForWarning) ? 'warning' : 'info';
    return [
      {
        severity,
        value: null,
        message:
          `The agent is ${facts.agentVersion}, older than this server's ${ctx.fleet.serverVersion}: it misses the collectors and ` +
          'fixes of the releases between, and findings that need them cannot judge this host.',
        remedy:
          'On the host: `sudo node --env-file=/etc/inferwatch/agent.env /usr/local/lib/inferwatch/inferwatch-agent.mjs --upgrade ' +
          '&& sudo systemctl restart inferwatch-agent` — it downloads this server\'s agent, checks its SHA-256, swaps the file ' +
          'and keeps the old one if the new one does not start. An agent that does not know --upgrade yet: run the Settings ' +
          'page\'s install line again (Settings → Enrollment keys), which keeps the host\'s token and its other settings.',
        evidence: {
          values: [
            { label: 'agent version', value: facts.agentVersion },
            { label: 'server version', value: ctx.fleet.serverVersion },
          ],
        },
      },
    ];
  },
});
