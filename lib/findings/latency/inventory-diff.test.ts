import { describe, expect, test } from 'vitest';
import { cleanCpu, cleanInventory, watchedProcess } from '../../../tests/support/findings-facts';
import { diffInventories } from './inventory-diff';

describe('diffInventories', () => {
  test('an identical inventory has no changes', () => {
    expect(diffInventories(cleanInventory(), cleanInventory({ hash: 'other' }))).toEqual([]);
  });

  test('names thread variables, allowed CPUs, cgroup, runtimes and a restart of a watched process', () => {
    const before = cleanInventory({ processes: [watchedProcess({ runtimes: [{ id: 'gnu-openmp', library: 'libgomp.so.1' }] })] });
    const after = cleanInventory({
      processes: [
        watchedProcess({
          pid: 5151,
          env: { OMP_NUM_THREADS: '16', KMP_AFFINITY: 'granularity=fine,compact,1,0' },
          cpusAllowedList: '0-3',
          cgroup: { path: '/docker/abc', version: 2, quotaCores: 4, cpusetCpus: '0-3', effectiveCpus: 4 },
          runtimes: [{ id: 'intel-openmp', library: 'libiomp5.so' }],
        }),
      ],
    });
    expect(diffInventories(before, after)).toEqual([
      'serve.py restarted (pid 4242 → 5151)',
      'serve.py KMP_BLOCKTIME 1 → unset',
      'serve.py OMP_NUM_THREADS 8 → 16',
      'serve.py CPUs allowed 0-7 → 0-3',
      'serve.py cgroup CPU quota none → 4',
      'serve.py cgroup cpuset all → 0-3',
      'serve.py runtimes gnu-openmp → intel-openmp',
    ]);
  });

  test('names the kernel, online CPUs, lost vector flags, the host cgroup and a disk scheduler', () => {
    const before = cleanInventory();
    const after = cleanInventory({
      host: { kernel: '6.1.0-20-amd64', memTotalBytes: 32e9, onlineCpus: 6 },
      cpu: cleanCpu({ flags: ['fpu', 'sse4_2', 'avx', 'hypervisor'] }),
      cgroup: { path: '/', version: 2, quotaCores: 6, cpusetCpus: null, effectiveCpus: 6 },
      disks: [{ ...(before.disks as { device: string }[])[0]!, scheduler: 'mq-deadline' } as never],
    });
    expect(diffInventories(before, after)).toEqual([
      'kernel 6.1.0-18-amd64 → 6.1.0-20-amd64',
      'online CPUs 8 → 6',
      'CPU flags lost: avx2, fma, avx512f, avx512bw, avx512_vnni',
      'host cgroup CPU quota none → 6',
      'nvme0n1 scheduler none → mq-deadline',
    ]);
  });

  test('thread count churn is not a change; a new pool size is', () => {
    const of = (threads: number) => cleanInventory({ processes: [watchedProcess({ threads })] });
    expect(diffInventories(of(12), of(14))).toEqual([]);
    expect(diffInventories(of(12), of(48))).toEqual(['serve.py threads 12 → 48']);
  });

  test('processes of one name pair up in order; one more or one fewer is started or gone', () => {
    const workers = (...pids: number[]) => cleanInventory({ processes: pids.map((pid) => watchedProcess({ pid })) });
    expect(diffInventories(workers(1, 2), workers(1, 2, 3))).toEqual(['serve.py started']);
    expect(diffInventories(workers(1, 2), workers(1))).toEqual(['serve.py gone']);
  });
});
