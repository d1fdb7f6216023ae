import { isLoopbackHost } from '@/lib/protocol/loopback';

/** Where the README installs the agent bundle and keeps its enrollment key (agent/inferwatch-agent.service reads both). */
export const AGENT_PATH = '/usr/local/lib/inferwatch/inferwatch-agent.mjs';
export const ENROLL_KEY_PATH = '/etc/inferwatch/enroll-key';

/** One POSIX shell word: single-quoted, with embedded single quotes closed, escaped and reopened. */
export function shellQuote(text: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The one line to run on a new host: store the key where the systemd unit reads it (0600, never in `ps`: printf is a
 * shell builtin) and start the agent, which trades the key for its own host token on first contact.
 */
export function agentInstallCommand({ serverUrl, key }: { serverUrl: string; key: string }): string {
  return (
    `printf '%s\\n' ${shellQuote(key)} | sudo install -D -m 0600 /dev/stdin ${ENROLL_KEY_PATH} && ` +
    `sudo node ${AGENT_PATH} --server ${shellQuote(serverUrl)} --enroll-key-file ${ENROLL_KEY_PATH}`
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
