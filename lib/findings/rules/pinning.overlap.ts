import type { ProcessInventory } from '../../protocol';
import { defineHostRule } from '../types';
import { cpusetArgument, plural } from '../format';
import { affinityCpus, affinitySet, affinityText } from '../facts/usable-cpus';
import { nodesOrOnline, numaNodesOf, type NumaNode } from '../facts/numa';
import { processLabel } from '../facts/services';

/** Maximal runs of consecutive CPUs: "0-7,16-23" → [[0…7], [16…23]]. */
function runsOf(cpus: readonly number[]): number[][] {
  const runs: number[][] = [];
  for (const cpu of cpus) {
    const last = runs.at(-1);
    if (last && cpu === last.at(-1)! + 1) last.push(cpu);
    else runs.push([cpu]);
  }
  return runs;
}

/**
 * `count` equal contiguous shares of one node's CPUs. A node listed as equal runs ("0-7,16-23": cores, then their
 * hyperthreads) is cut in each run alike, so a share keeps each core with its sibling. null when a share would be empty.
 */
function shareNode(cpus: readonly number[], count: number): number[][] | null {
  const runs = runsOf(cpus);
  const parts = runs.every((run) => run.length === runs[0]!.length) ? runs : [[...cpus]];
  const size = Math.floor(parts[0]!.length / count);
  if (size === 0) return null;
  return Array.from({ length: count }, (_, i) => parts.flatMap((part) => part.slice(i * size, (i + 1) * size)));
}

/**
 * A CPU set per process: equal contiguous shares of the host's CPUs, never across a NUMA node. With no more
 * processes than nodes, each gets a node of its own; otherwise the processes are spread over the nodes evenly.
 */
export function splitCpus(processes: number, nodes: readonly NumaNode[]): { cpus: readonly number[]; node: number | null }[] | null {
  if (processes < 1 || nodes.length === 0) return null;
  const numa = nodes.length > 1;
  if (processes <= nodes.length) return nodes.slice(0, processes).map((n) => ({ cpus: n.cpus, node: numa ? n.node : null }));
  const shares: { cpus: readonly number[]; node: number | null }[] = [];
  for (const [i, n] of nodes.entries()) {
    const count = Math.floor(processes / nodes.length) + (i < processes % nodes.length ? 1 : 0);
    const cut = shareNode(n.cpus, count);
    if (!cut) return null;
    shares.push(...cut.map((cpus) => ({ cpus, node: numa ? n.node : null })));
  }
  return shares;
}

/** The container a cgroup path names (docker's cgroupfs and systemd drivers), for `docker update`. */
export function dockerContainerOf(cgroupPath: string | undefined): string | null {
  const match = cgroupPath && /(?:\/docker\/|docker-)([0-9a-f]{12,64})(?:\.scope)?$/.exec(cgroupPath);
  return match ? match[1]!.slice(0, 12) : null;
}

function pinCommand(process: ProcessInventory, share: { cpus: readonly number[]; node: number | null }): string {
  const cpus = cpusetArgument(share.cpus);
  const mems = share.node === null ? '' : ` --cpuset-mems=${share.node}`;
  const container = dockerContainerOf(process.cgroup?.path);
  if (container) return `${processLabel(process)}: \`docker update --cpuset-cpus=${cpus}${mems} ${container}\``;
  const atStart = share.node === null
    ? `\`CPUAffinity=${cpus}\` in its systemd unit (or \`taskset -c ${cpus}\` before its command)`
    : `\`numactl --physcpubind=${cpus} --membind=${share.node}\` before its command (memory it already has stays where it is)`;
  return `${processLabel(process)}: \`taskset -acp ${cpus} ${process.pid}\` now, and ${atStart}`;
}

export const pinningOverlap = defineHostRule({
  id: 'pinning.overlap',
  title: 'Inference processes share CPUs',
  category: 'pinning',
  severities: ['warning'],
  defaults: {},
  openAfterMs: 0,
  needs: 'inventory',
  evaluate(facts) {
    const inventory = facts.inventory!.data;
    const processes = inventory.processes;
    if (processes.length < 2) return [];
    const online = inventory.host.onlineCpus;
    const sets = processes.map((p) => affinitySet(p, online));
    const sharing = processes.filter((p, i) => sets.some((other, j) => j !== i && affinityCpus(p, online).some((cpu) => other.has(cpu))));
    if (sharing.length === 0) return [];
    const listed = processes.map((p) => `${processLabel(p)} on ${affinityText(p, online)}`).join(', ');
    const split = splitCpus(processes.length, nodesOrOnline(inventory));
    const remedy = split
      ? `Give each process its own CPUs, equal contiguous shares${(numaNodesOf(inventory)?.length ?? 0) > 1 ? ' within one NUMA node each' : ''}: ` +
        `${processes.map((p, i) => pinCommand(p, split[i]!)).join('; ')}. ` +
        'Then size each one\'s pools to its share (OMP_NUM_THREADS = its CPUs), and start containers with --cpuset-cpus so the split survives a restart.'
      : `There are more watched processes (${processes.length}) than CPUs to share out (${online}): run fewer workers, then pin each to its own CPUs with docker run --cpuset-cpus or taskset -c.`;
    return [
      {
        subject: '',
        severity: 'warning',
        value: sharing.length,
        message: `${plural(sharing.length, 'watched process', 'watched processes')} of ${processes.length} may run on the same CPUs: ${listed}.`,
        remedy,
        evidence: {
          values: [
            { label: 'watched processes', value: processes.length },
            { label: 'sharing CPUs', value: sharing.length },
            { label: 'online CPUs', value: online, unit: 'CPUs' },
          ],
          series: [...new Set(sharing.map((p) => p.name))].map((name) => ({ metric: 'process_nonvoluntary_cs', key: name })),
        },
      },
    ];
  },
});
