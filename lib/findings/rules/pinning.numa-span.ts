import { defineHostRule, type Verdict } from '../types';
import { cpusetArgument, formatCpuList } from '../format';
import { affinitySet } from '../facts/usable-cpus';
import { numaNodesOf } from '../facts/numa';
import { processLabel, servicesOf } from '../facts/services';

export const numaSpan = defineHostRule({
  id: 'pinning.numa-span',
  title: "A process's CPUs span NUMA nodes",
  category: 'pinning',
  severities: ['info'],
  defaults: {},
  openAfterMs: 0,
  needs: 'inventory',
  evaluate(facts) {
    const inventory = facts.inventory!.data;
    const nodes = numaNodesOf(inventory);
    if (!nodes || nodes.length < 2) return [];
    const verdicts: Verdict[] = [];
    for (const [name, workers] of servicesOf(inventory)) {
      for (const worker of workers) {
        const cpus = affinitySet(worker, inventory.host.onlineCpus);
        const spanned = nodes.filter((n) => n.cpus.some((cpu) => cpus.has(cpu)));
        if (spanned.length < 2) continue;
        const first = spanned[0]!;
        const nodeText = spanned.map((n) => `${n.node} (${formatCpuList(n.cpus.filter((cpu) => cpus.has(cpu)))})`).join(', ');
        verdicts.push({
          subject: name,
          severity: 'info',
          value: spanned.length,
          message:
            `${processLabel(worker)} may run on CPUs ${formatCpuList([...cpus])}, which span NUMA nodes ${nodeText}: ` +
            'memory its threads allocate on one node is read from the other at remote latency and bandwidth.',
          remedy:
            `Keep each process on one node, CPUs and memory: \`numactl --cpunodebind=${first.node} --membind=${first.node} <command>\`, ` +
            `\`docker run --cpuset-cpus=${cpusetArgument(first.cpus)} --cpuset-mems=${first.node}\`, or PyTorch's ` +
            `\`python -m torch.backends.xeon.run_cpu --node-id ${first.node} serve.py\`. ` +
            (workers.length > 1 ? `Spread the ${workers.length} workers over the nodes, one group per node, rather than every worker over all of them.` : 'To use every node, run one worker per node.'),
          evidence: {
            values: [
              { label: 'NUMA nodes spanned', value: spanned.length },
              { label: 'NUMA nodes on the host', value: nodes.length },
              { label: 'CPUs it may run on', value: formatCpuList([...cpus]) },
            ],
            series: [{ metric: 'process_cpu', key: name }],
          },
        });
        break;
      }
    }
    return verdicts;
  },
});
