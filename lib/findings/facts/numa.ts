import { isUnavailable, type Inventory } from '../../protocol';
import { cpuListOf, onlineList } from './usable-cpus';

export interface NumaNode {
  node: number;
  cpus: number[];
}

/** The NUMA nodes that have CPUs, from the CPU inventory's node lists; null when the agent sent none. */
export function numaNodesOf(inventory: Inventory): NumaNode[] | null {
  const cpu = inventory.cpu;
  if (isUnavailable(cpu) || !cpu.numaNodeCpus) return null;
  return cpu.numaNodeCpus.map((list, node) => ({ node, cpus: [...cpuListOf(list)] })).filter((n) => n.cpus.length > 0);
}

const onlineNodeCache = new Map<number, readonly NumaNode[]>();

/** The NUMA nodes with their CPUs, or the online CPUs as one node when the agent sent no node lists. */
export function nodesOrOnline(inventory: Inventory): readonly NumaNode[] {
  const nodes = numaNodesOf(inventory);
  if (nodes) return nodes;
  const online = inventory.host.onlineCpus;
  let one = onlineNodeCache.get(online);
  if (!one) onlineNodeCache.set(online, (one = [{ node: 0, cpus: onlineList(online) }]));
  return one;
}
