'use client';

import { useIsClient } from '../hooks/use-is-client';
import { EmptyState } from '../states';

/** The first-run state: what to run on a host to see it here. */
export function NoHostsYet() {
  const isClient = useIsClient();
  const server = isClient ? window.location.origin : 'http://THIS-SERVER:3000';
  return (
    <EmptyState title="No hosts yet — run this on a host:">
      <pre className="command">
        <code>{`node inferwatch-agent.mjs --server ${server} --enroll-key-file /etc/inferwatch/enroll-key`}</code>
      </pre>
      <p className="muted">
        Build the agent with <code>npm run agent:bundle</code> (it writes <code>dist/inferwatch-agent.mjs</code>) and create a key
        for the host&apos;s region with <code>npm run admin -- keys create --name oslo-prod --region oslo</code>. The host appears
        here after its first report; the README has the systemd unit.
      </p>
    </EmptyState>
  );
}
