import { describe, expect, test } from 'vitest';
import type { Inventory, ProcessInventory } from '../../protocol';
import { cleanCpu, cleanInventory, hostFacts, ruleContext, watchedProcess } from '../../../tests/support/findings-facts';
import { numaSpan } from './pinning.numa-span';

const twoNodes = (numaNodeCpus: string[] | null = ['0-7', '8-15']): Partial<Inventory> => ({
  host: { kernel: '6.1.0-18-amd64', memTotalBytes: 256e9, onlineCpus: 16 },
  cpu: cleanCpu({ sockets: 2, cores: 16, threads: 16, numaNodes: 2, ...(numaNodeCpus ? { numaNodeCpus } : {}) }),
});
const judge = (processes: ProcessInventory[], patch: Partial<Inventory> = twoNodes()) =>
  numaSpan.evaluate(hostFacts({ inventory: cleanInventory({ processes, ...patch }) }), {}, ruleContext());
const on = (cpus: string, patch: Partial<ProcessInventory> = {}) => watchedProcess({ cpusAllowedList: cpus, ...patch });

describe('pinning.numa-span', () => {
  test('a clean host (one node) raises nothing', () => {
    expect(numaSpan.evaluate(hostFacts(), {}, ruleContext())).toEqual([]);
  });

  test('a process on both nodes is told which CPUs of each, with numactl, docker and the PyTorch launcher', () => {
    const [v] = judge([on('0-15')]);
    expect(v).toMatchObject({ subject: 'serve.py', severity: 'info', value: 2 });
    expect(v!.message).toBe(
      'serve.py (pid 4242) may run on CPUs 0–15, which span NUMA nodes 0 (0–7), 1 (8–15): memory its threads allocate on one node is read from the other at remote latency and bandwidth.',
    );
    expect(v!.remedy).toContain('`numactl --cpunodebind=0 --membind=0 <command>`');
    expect(v!.remedy).toContain('`docker run --cpuset-cpus=0-7 --cpuset-mems=0`');
    expect(v!.remedy).toContain('torch.backends.xeon.run_cpu --node-id 0');
  });

  test('one CPU over the node boundary is enough; a process within one node is fine', () => {
    expect(judge([on('4-8')])[0]!.message).toContain('span NUMA nodes 0 (4–7), 1 (8)');
    expect(judge([on('8-15')])).toEqual([]);
  });

  test('workers: one finding per service, the remedy spreads them over the nodes', () => {
    const verdicts = judge([on('0-15', { pid: 1 }), on('0-15', { pid: 2 })]);
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]!.remedy).toContain('Spread the 2 workers over the nodes');
  });

  test('memory-only nodes (no CPUs) do not count', () => {
    expect(judge([on('0-15')], twoNodes(['0-15', '']))).toEqual([]);
  });

  test('without the node lists (an older agent) it says nothing', () => {
    expect(judge([on('0-15')], twoNodes(null))).toEqual([]);
    expect(judge([on('0-15')], { cpu: { unavailable: 'no cpuinfo' } })).toEqual([]);
  });
});
