import { describe, expect, test } from 'vitest';
import type { Inventory, ProcessInventory } from '../../protocol';
import { cleanCpu, cleanInventory, hostFacts, loaded, ruleContext, watchedProcess } from '../../../tests/support/findings-facts';
import { threadsUnsetInQuota } from './threads.unset-in-quota';

const quota = (cores: number) => ({ path: '/kubepods/pod1/c1', version: 2 as const, quotaCores: cores, cpusetCpus: null, effectiveCpus: cores });
const judge = (processes: ProcessInventory[], patch: Partial<Inventory> = {}) =>
  threadsUnsetInQuota.evaluate(hostFacts({ inventory: cleanInventory({ processes, ...patch }) }), {}, ruleContext());
const unset = (patch: Partial<ProcessInventory> = {}) => watchedProcess({ env: {}, runtimes: loaded('gnu-openmp'), cgroup: quota(2), ...patch });

describe('threads.unset-in-quota', () => {
  test('a clean host raises nothing', () => {
    expect(threadsUnsetInQuota.evaluate(hostFacts(), {}, ruleContext())).toEqual([]);
  });

  test('GNU OpenMP with OMP_NUM_THREADS unset in a 2-CPU quota on an 8-CPU host warns, naming the runtime and the numbers', () => {
    const [v] = judge([unset()]);
    expect(v).toMatchObject({ subject: 'serve.py', severity: 'warning', value: 4 });
    expect(v!.message).toBe(
      'serve.py (pid 4242) has 2 usable CPUs (quota 2), yet GNU OpenMP (libgomp) starts 8 threads with OMP_NUM_THREADS unset — ' +
        'it sizes its pool from the CPUs in its affinity mask, not the CFS quota.',
    );
    expect(v!.remedy).toMatch(/^Set the pool sizes explicitly to the CPUs each worker has: OMP_NUM_THREADS=2\. OpenMP and BLAS runtimes size their pools from the host's cores, not the quota/);
    expect(v!.evidence.series).toEqual([{ metric: 'process_threads', key: 'serve.py' }, { metric: 'cgroup_throttled_pct', key: '/kubepods/pod1/c1' }]);
  });

  test('a cpuset alone is fine for runtimes that count the affinity mask, not for those that count the host', () => {
    const cpuset = { cpusAllowedList: '0-1', cpusAllowedCount: 2, cgroup: null };
    expect(judge([unset(cpuset)])).toEqual([]);
    const [v] = judge([unset({ ...cpuset, runtimes: loaded('onnxruntime') })]);
    expect(v!.message).toBe(
      'serve.py (pid 4242) has 2 usable CPUs (cpuset 0–1), yet ONNX Runtime starts 8 threads unless its size is set in code — ' +
        "it sizes its pool from the host's physical cores, not the cpuset or the quota.",
    );
    expect(v!.remedy).toContain('sess_options.intra_op_num_threads = 2');
    expect(v!.remedy).toContain('acknowledge this finding');
  });

  test('each runtime that sizes itself to the host is named; BLIS, single-threaded by default, is not', () => {
    const [v] = judge([unset({ runtimes: loaded('pytorch', 'mkl', 'gnu-openmp', 'openblas-pthreads', 'blis') })]);
    expect(v!.message).toContain('PyTorch starts 8 threads with MKL_NUM_THREADS, OMP_NUM_THREADS unset');
    expect(v!.message).toContain('Intel MKL starts 8 threads');
    expect(v!.message).toContain('OpenBLAS (pthreads) starts 8 threads with OPENBLAS_NUM_THREADS, GOTO_NUM_THREADS, OMP_NUM_THREADS unset');
    expect(v!.message).not.toContain('BLIS');
  });

  test('a pool set in the environment is not this rule\'s, even when it is too big (threads.oversubscribed judges it)', () => {
    expect(judge([unset({ env: { OMP_NUM_THREADS: '8' } })])).toEqual([]);
  });

  test('boundary: a default pool exactly the size of the quota is fine', () => {
    expect(judge([unset({ cgroup: quota(8) })])).toEqual([]);
    expect(judge([unset({ cgroup: quota(7.5) })])).toHaveLength(1);
  });

  test("the host's cgroup counts when the process has none of its own", () => {
    expect(judge([unset({ cgroup: null })], { cgroup: quota(4) })).toHaveLength(1);
  });

  test('workers: the finding says how many of them are affected and shares the CPUs out in the remedy', () => {
    const [v] = judge([unset({ pid: 1 }), unset({ pid: 2, env: { OMP_NUM_THREADS: '1' }, cgroup: quota(2) })]);
    expect(v!.message).toMatch(/^serve\.py \(pid 1\) \(1 of 2 workers\) has 2 usable CPUs/);
  });

  test('says nothing when the runtimes or the environment cannot be read', () => {
    expect(judge([unset({ runtimes: undefined })])).toEqual([]);
    expect(judge([unset({ runtimes: undefined, runtimesUnreadable: 'maps: EACCES' })])).toEqual([]);
    expect(judge([unset({ envUnreadable: 'environ: EACCES' })])).toEqual([]);
  });

  test('says nothing for ONNX Runtime when the host physical cores are unknown', () => {
    expect(judge([unset({ runtimes: loaded('onnxruntime') })], { cpu: { unavailable: 'no cpuinfo' } })).toEqual([]);
    expect(judge([unset({ runtimes: loaded('onnxruntime') })], { cpu: cleanCpu({ cores: 2 }) })).toEqual([]);
  });
});
