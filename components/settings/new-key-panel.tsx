'use client';

import type { CreatedEnrollmentKeyView } from '@/lib/protocol/admin';
import { CopyButton } from './copy-button';
import { AGENT_PATH, ENROLL_KEY_PATH, agentInstallCommand } from './install-command';

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
        Before it: Node.js 20+ and curl on the host. The line downloads this server’s <code>/install.sh</code>, which fetches
        the agent from this server, checks its SHA-256, installs it at <code>{AGENT_PATH}</code> with the hardened systemd
        unit, creates the unprivileged <code>inferwatch</code> user the agent runs as, keeps the key in{' '}
        <code>{ENROLL_KEY_PATH}</code> (root only, 0600; systemd hands it to the agent), writes the server to the unit’s
        settings and starts it. The key goes on the script’s stdin, never in its arguments, and the line starts with a space
        so bash keeps it out of your history. The agent trades the key for its own host token on first contact, and the host
        appears on the fleet page after its first report.
      </p>
      <button type="button" className="button" onClick={onDismiss}>
        Done, hide the key
      </button>
    </section>
  );
}
