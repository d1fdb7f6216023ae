import { describe, expect, test } from 'vitest';
import type { Inventory, ProcessInventory } from '../../protocol';
import { cleanCpu, cleanInventory, hostFacts, ruleContext, watchedProcess } from '../../../tests/support/findings-facts';
import { dockerContainerOf, pinningOverlap, splitCpus } from './pinning.overlap';

const judge = (processes: ProcessInventory[], patch: Partial<Inventory> = {}) =>
  pinningOverlap.evaluate(hostFacts({ inventory: cleanInventory({ processes, ...patch }) }), {}, ruleContext());
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const twoNodes: Partial<Inventory> = {
  host: { kernel: '6.1.0-18-amd64', memTotalBytes: 256e9, onlineCpus: 16 },
  cpu: cleanCpu({ sockets: 2, cores: 8, threads: 16, numaNodes: 2, numaNodeCpus: ['0-3,8-11', '4-7,12-15'] }),
};
const ID = '3f2a9c1b7d4e5f60718293a4b5c6d7e8f90123456789abcdef0123456789abcd';
const inDocker = { path: `/system.slice/docker-${ID}.scope`, version: 2 as const, quotaCores: null, cpusetCpus: null, effectiveCpus: 8 };

describe('splitCpus', () => {
  test('equal contiguous shares of one node', () => {
    expect(splitCpus(2, [{ node: 0, cpus: range(0, 7) }])).toEqual([{ cpus: range(0, 3), node: null }, { cpus: range(4, 7), node: null }]);
    expect(splitCpus(3, [{ node: 0, cpus: range(0, 7) }])!.map((s) => s.cpus)).toEqual([[0, 1], [2, 3], [4, 5]]);
  });

  test('a node listed as cores then hyperthreads is cut alike in both runs, keeping siblings together', () => {
    expect(splitCpus(2, [{ node: 0, cpus: [...range(0, 3), ...range(8, 11)] }])!.map((s) => s.cpus)).toEqual([[0, 1, 8, 9], [2, 3, 10, 11]]);
  });

  test('never across NUMA nodes: a node each while they last, then spread evenly', () => {
    const nodes = [{ node: 0, cpus: range(0, 7) }, { node: 1, cpus: range(8, 15) }];
    expect(splitCpus(2, nodes)).toEqual([{ cpus: range(0, 7), node: 0 }, { cpus: range(8, 15), node: 1 }]);
    expect(splitCpus(3, nodes)!.map((s) => [s.cpus.length, s.node])).toEqual([[4, 0], [4, 0], [8, 1]]);
  });

  test('no split when there are more processes than CPUs', () => {
    expect(splitCpus(3, [{ node: 0, cpus: [0, 1] }])).toBeNull();
  });
});

describe('dockerContainerOf', () => {
  test('reads the container id from the cgroupfs and systemd drivers\' paths, nothing else', () => {
    const id = '3f2a9c1b7d4e5f60718293a4b5c6d7e8f90123456789abcdef0123456789abcd';
    expect(dockerContainerOf(`/docker/${id}`)).toBe('3f2a9c1b7d4e');
    expect(dockerContainerOf(`/system.slice/docker-${id}.scope`)).toBe('3f2a9c1b7d4e');
    expect(dockerContainerOf('/user.slice/user-1000.slice')).toBeNull();
    expect(dockerContainerOf(undefined)).toBeNull();
  });
});

describe('pinning.overlap', () => {
  test('a clean host (one watched process) raises nothing', () => {
    expect(pinningOverlap.evaluate(hostFacts(), {}, ruleContext())).toEqual([]);
  });

  test('two unpinned processes warn with a split and a command per process', () => {
    const [v] = judge([watchedProcess({ pid: 1, cgroup: inDocker }), watchedProcess({ pid: 2, name: 'ranker' })]);
    expect(v).toMatchObject({ subject: '', severity: 'warning', value: 2 });
    expect(v!.message).toBe('2 watched processes of 2 may run on the same CPUs: serve.py (pid 1) on 0–7, ranker (pid 2) on 0–7.');
    expect(v!.remedy).toBe(
      'Give each process its own CPUs, equal contiguous shares: serve.py (pid 1): `docker update --cpuset-cpus=0-3 3f2a9c1b7d4e`; ' +
        'ranker (pid 2): `taskset -acp 4-7 2` now, and `CPUAffinity=4-7` in its systemd unit (or `taskset -c 4-7` before its command). ' +
        "Then size each one's pools to its share (OMP_NUM_THREADS = its CPUs), and start containers with --cpuset-cpus so the split survives a restart.",
    );
  });

  test('partial overlap counts; disjoint sets do not', () => {
    expect(judge([watchedProcess({ pid: 1, cpusAllowedList: '0-4' }), watchedProcess({ pid: 2, cpusAllowedList: '4-7' })])).toHaveLength(1);
    expect(judge([watchedProcess({ pid: 1, cpusAllowedList: '0-3' }), watchedProcess({ pid: 2, cpusAllowedList: '4-7' })])).toEqual([]);
  });

  test('only the processes that share are counted, all are listed', () => {
    const [v] = judge([
      watchedProcess({ pid: 1, cpusAllowedList: '0-1' }),
      watchedProcess({ pid: 2, cpusAllowedList: '1-2' }),
      watchedProcess({ pid: 3, cpusAllowedList: '4-7' }),
    ]);
    expect(v!.message).toMatch(/^2 watched processes of 3 may run on the same CPUs: .*serve\.py \(pid 3\) on 4–7\.$/);
  });

  test('with NUMA node lists the split keeps each process on one node and binds its memory there', () => {
    const [v] = judge([watchedProcess({ pid: 1, cpusAllowedList: '0-15' }), watchedProcess({ pid: 2, cpusAllowedList: '0-15', cgroup: inDocker })], twoNodes);
    expect(v!.remedy).toMatch(
      /^Give each process its own CPUs, equal contiguous shares within one NUMA node each: serve\.py \(pid 1\): `taskset -acp 0-3,8-11 1` now, and `numactl --physcpubind=0-3,8-11 --membind=0` before its command/,
    );
    expect(v!.remedy).toContain('serve.py (pid 2): `docker update --cpuset-cpus=4-7,12-15 --cpuset-mems=1 3f2a9c1b7d4e`');
  });

  test('more processes than CPUs: no split, fewer workers', () => {
    const processes = range(1, 10).map((pid) => watchedProcess({ pid }));
    expect(judge(processes)[0]!.remedy).toMatch(/^There are more watched processes \(10\) than CPUs to share out \(8\)/);
  });
});
