import type { ProcessInventory } from '../../protocol';
import { defineHostRule } from '../types';

const UNIT_FILE = 'agent/inferwatch-agent.service';

/** What the agent could not read of a process, as the file and the agent's reason. */
function unreadableParts(p: ProcessInventory): { what: string; file: 'environ' | 'maps'; reason: string }[] {
  return [
    ...(p.envUnreadable !== undefined ? [{ what: 'environment', file: 'environ' as const, reason: p.envUnreadable }] : []),
    ...(p.runtimesUnreadable !== undefined ? [{ what: 'loaded libraries', file: 'maps' as const, reason: p.runtimesUnreadable }] : []),
  ];
}

/**
 * environ is mode 0400 and both files pass the kernel's ptrace-read check: another user's process needs
 * CAP_SYS_PTRACE for maps, and CAP_DAC_READ_SEARCH as well for environ.
 */
function capabilitiesFor(files: ReadonlySet<string>): string {
  return files.has('environ') ? 'CAP_SYS_PTRACE CAP_DAC_READ_SEARCH' : 'CAP_SYS_PTRACE';
}

function remedyFor(files: ReadonlySet<string>, denied: boolean): string {
  const caps = capabilitiesFor(files);
  const paths = [...files].map((f) => `/proc/<pid>/${f}`).join(' and ');
  const dockerCaps = caps.split(' ').map((c) => `--cap-add ${c.replace('CAP_', '')}`).join(' ');
  const notDenied = denied
    ? ''
    : 'The reason is not a permission: the process may have exited while the agent read it, and the finding resolves ' +
      'with its next inventory. If it stays: ';
  return (
    notDenied +
    `${paths} of another user's process need ${caps}; the shipped unit runs the agent as the unprivileged user ` +
    'inferwatch. Either run the agent as the inference service\'s user (User= and Group=), or grant the capabilities: ' +
    `${UNIT_FILE} (installed as /etc/systemd/system/inferwatch-agent.service) sets CapabilityBoundingSet= and ` +
    `AmbientCapabilities= empty — \`systemctl edit inferwatch-agent\` and add under [Service] CapabilityBoundingSet=${caps} ` +
    `and AmbientCapabilities=${caps} (NoNewPrivileges=true may stay), then \`systemctl restart inferwatch-agent\`. ` +
    'CAP_SYS_PTRACE also sees through /proc mounted with hidepid= (`findmnt -no OPTIONS /proc`), and a process that made ' +
    'itself non-dumpable needs the capabilities even under the same user. An agent in a container needs the host\'s PID ' +
    `namespace (docker --pid=host, Kubernetes hostPID: true) and the same capabilities (${dockerCaps}).`
  );
}

export const processUnreadable = defineHostRule({
  id: 'agent.process-unreadable',
  title: 'Watched process the agent cannot read',
  category: 'agent',
  severities: ['warning'],
  defaults: {},
  openAfterMs: 0,
  needs: 'inventory',
  evaluate(facts) {
    const byName = new Map<string, ProcessInventory[]>();
    for (const p of facts.inventory!.data.processes) {
      if (unreadableParts(p).length === 0) continue;
      byName.set(p.name, [...(byName.get(p.name) ?? []), p]);
    }
    return [...byName].map(([name, processes]) => {
      const parts = unreadableParts(processes[0]!);
      const files = new Set(processes.flatMap((p) => unreadableParts(p).map((u) => u.file)));
      const denied = processes.some((p) => unreadableParts(p).some((u) => /permission denied/i.test(u.reason)));
      const pids = processes.map((p) => p.pid);
      const pidText = pids.length === 1 ? `pid ${pids[0]}` : `pids ${pids.join(', ')}`;
      return {
        subject: name,
        severity: 'warning' as const,
        message:
          `The agent could not read the ${parts.map((u) => `${u.what} (${u.reason})`).join(' and the ')} of ${name} ` +
          `(${pidText}), so the thread and OpenMP rules cannot judge it.`,
        remedy: remedyFor(files, denied),
        evidence: {
          values: [
            { label: 'process', value: name },
            { label: 'pids', value: pids.join(', ') },
            { label: 'command', value: processes[0]!.comm },
            ...processes.flatMap((p) => unreadableParts(p).map((u) => ({ label: `/proc/${p.pid}/${u.file}`, value: u.reason }))),
          ],
        },
      };
    });
  },
});
