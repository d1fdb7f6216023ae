import { isLoopbackHost } from '@/lib/protocol/loopback';

/** Where install.sh (agent/install.sh, served at /install.sh) puts the agent, its key and its settings. */
export const AGENT_PATH = '/usr/local/lib/inferwatch/inferwatch-agent.mjs';
export const ENROLL_KEY_PATH = '/etc/inferwatch/enroll-key';
export const AGENT_ENV_PATH = '/etc/inferwatch/agent.env';
export const SERVICE_USER = 'inferwatch';

/** One POSIX shell word: single-quoted, with embedded single quotes closed, escaped and reopened. */
export function shellQuote(text: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The one line to run on a new host: in a subshell (its exit status is install.sh's), this server's install.sh goes to a
 * private temporary file, removed on exit, and runs as root with the key on its stdin. The key goes through printf, a
 * shell builtin, so it never shows in `ps`; the line starts with a space, which bash's default HISTCONTROL
 * (ignorespace/ignoreboth) keeps out of the history.
 */
export function agentInstallCommand({ serverUrl, key }: { serverUrl: string; key: string }): string {
  const server = serverUrl.replace(/\/+$/, '');
  return (
    ` (f=$(mktemp) && trap 'rm -f "$f"' EXIT && curl -fsSL ${shellQuote(`${server}/install.sh`)} -o "$f" && ` +
    `printf '%s\\n' ${shellQuote(key)} | sudo sh "$f" --server ${shellQuote(server)})`
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
