'use client';

import type { CreatedEnrollmentKeyView } from '@/lib/protocol/admin';
import { CopyButton } from './copy-button';
import { AGENT_PATH, ENROLL_KEY_PATH, UNIT_PATH, agentInstallCommand } from './install-command';

/** The key just created, shown this once, and the line that puts it on a host and starts the agent there. */
export function NewKeyPanel({ created, serverUrl, onDismiss }: { created: CreatedEnrollmentKeyView; serverUrl: string; onDismiss: () => void }) {
  const command = agentInstallCommand({ serverUrl, key: created.key });
  return (
    <section className="panel new-key" aria-label={`New enrollment key ${created.name}`} data-testid="new-key">
      <h3>
        Key <span className="subject">{created.name}</span> for region <span className="subject">{created.region}</span> — shown only now
      </h3>
      <p className="muted">Only its hash is stored. Copy it or the command now; if it is lost, revoke it and create another.</p>
      <pre className="command">
        <code data-testid="new-key-value">{created.key}</code>
      </pre>
      <CopyButton text={created.key} label="Copy key" />
      <h3>Run this on the host</h3>
      <pre className="command wrap">
        <code data-testid="install-command">{command}</code>
      </pre>
      <CopyButton text={command} label="Copy command" />
      <p className="muted">
        Before it: Node.js 20+, the agent bundle at <code>{AGENT_PATH}</code> (<code>npm run agent:bundle</code>, then copy{' '}
        <code>dist/inferwatch-agent.mjs</code>) and the hardened unit <code>agent/inferwatch-agent.service</code> at{' '}
        <code>{UNIT_PATH}</code>. The line creates the unprivileged <code>inferwatch</code> user the agent runs as, keeps the key
        in <code>{ENROLL_KEY_PATH}</code> (root only, 0600; systemd hands it to the agent), writes the server to the unit’s
        settings and starts it. It starts with a space so bash keeps it out of your history. The agent trades the key for its
        own host token on first contact, and the host appears on the fleet page after its first report.
      </p>
      <button type="button" className="button" onClick={onDismiss}>
        Done, hide the key
      </button>
    </section>
  );
}
