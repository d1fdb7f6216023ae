import { isLoopbackHost } from '@/lib/protocol/loopback';

/** Where the README installs the agent bundle and the unit, and where agent/inferwatch-agent.service reads its key and settings. */
export const AGENT_PATH = '/usr/local/lib/inferwatch/inferwatch-agent.mjs';
export const UNIT_PATH = '/etc/systemd/system/inferwatch-agent.service';
export const ENROLL_KEY_PATH = '/etc/inferwatch/enroll-key';
export const AGENT_ENV_PATH = '/etc/inferwatch/agent.env';
export const SERVICE_USER = 'inferwatch';

/** One POSIX shell word: single-quoted, with embedded single quotes closed, escaped and reopened. */
export function shellQuote(text: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The one line to run on a new host (bundle and unit already copied): the unprivileged service user the unit runs as,
 * the key in a root-only 0600 file (systemd hands it to the agent as a credential), the server in the unit's settings,
 * and the service started. The key goes through printf, a shell builtin, so it never shows in `ps`; the line starts
 * with a space, which bash's default HISTCONTROL (ignorespace/ignoreboth) keeps out of the history.
 */
export function agentInstallCommand({ serverUrl, key }: { serverUrl: string; key: string }): string {
  return (
    ` getent passwd ${SERVICE_USER} >/dev/null || sudo useradd --system --no-create-home --home-dir /var/lib/inferwatch-agent --shell /usr/sbin/nologin ${SERVICE_USER}; ` +
    `printf '%s\\n' ${shellQuote(key)} | sudo install -D -m 0600 -o root -g root /dev/stdin ${ENROLL_KEY_PATH} && ` +
    `printf 'INFERWATCH_SERVER=%s\\n' ${shellQuote(serverUrl)} | sudo install -D -m 0644 -o root -g root /dev/stdin ${AGENT_ENV_PATH} && ` +
    `sudo systemctl enable --now inferwatch-agent`
  );
}

/** Whether agents on other machines can reach `origin`: a loopback address answers only this machine. */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    return isLoopbackHost(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/** `team=ml, env=prod` → `{ team: 'ml', env: 'prod' }`; an error message for anything else. */
export function parseLabelsText(text: string): { labels: Record<string, string> } | { error: string } {
  const labels: Record<string, string> = {};
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const match = /^([A-Za-z0-9_.-]+)\s*[=:]\s*(.*)$/.exec(part);
    if (!match) return { error: `"${part}" is not key=value (keys: letters, digits, _ . -)` };
    labels[match[1]!] = match[2]!.trim();
  }
  return { labels };
}
