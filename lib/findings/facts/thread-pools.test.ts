import { describe, expect, test } from 'vitest';
import type { Inventory, ProcessInventory } from '../../protocol';
import { cleanCpu, cleanInventory, loaded, watchedProcess } from '../../../tests/support/findings-facts';
import { describePool, intraOpPools, largestPool, parseThreadCount } from './thread-pools';
import { describeUsable, fittingThreads, usableCpus } from './usable-cpus';
import { servicesOf } from './services';

/** A 16-CPU host with 8 physical cores (two threads each), no cgroup limit. */
const host16 = (processes: ProcessInventory[], patch: Partial<Inventory> = {}) =>
  cleanInventory({
    host: { kernel: '6.1.0-18-amd64', memTotalBytes: 64e9, onlineCpus: 16 },
    cpu: cleanCpu({ cores: 8, threads: 16 }),
    cgroup: { path: '/', version: 2, quotaCores: null, cpusetCpus: null, effectiveCpus: 16 },
    processes,
    ...patch,
  });
const proc = (patch: Partial<ProcessInventory>) => watchedProcess({ cpusAllowedList: '0-15', cpusAllowedCount: 16, env: {}, ...patch });
const sizes = (p: ProcessInventory, inventory = host16([p])) =>
  intraOpPools(p, inventory)?.sized.map((pool) => [pool.runtime, pool.threads, pool.variable]) ?? null;
const unsized = (p: ProcessInventory, inventory = host16([p])) => intraOpPools(p, inventory)?.unsized.map((pool) => [pool.runtime, pool.reason]) ?? null;

describe('intraOpPools: each runtime reads its own variables, in its own order', () => {
  test('OpenMP runtimes read OMP_NUM_THREADS (the first of a nested list)', () => {
    expect(sizes(proc({ runtimes: loaded('gnu-openmp'), env: { OMP_NUM_THREADS: '4,2' } }))).toEqual([['gnu-openmp', 4, 'OMP_NUM_THREADS']]);
    expect(sizes(proc({ runtimes: loaded('intel-openmp'), env: { OMP_NUM_THREADS: '6' } }))).toEqual([['intel-openmp', 6, 'OMP_NUM_THREADS']]);
  });

  test('OMP_THREAD_LIMIT caps what an OpenMP runtime starts, set or default', () => {
    expect(sizes(proc({ runtimes: loaded('gnu-openmp'), env: { OMP_NUM_THREADS: '12', OMP_THREAD_LIMIT: '4' } }))).toEqual([['gnu-openmp', 4, 'OMP_NUM_THREADS']]);
    expect(sizes(proc({ runtimes: loaded('intel-openmp'), env: { OMP_THREAD_LIMIT: '6' } }))).toEqual([['intel-openmp', 6, null]]);
  });

  test('MKL reads MKL_NUM_THREADS before OMP_NUM_THREADS, and scales down to physical cores unless MKL_DYNAMIC=FALSE', () => {
    expect(sizes(proc({ runtimes: loaded('mkl'), env: { MKL_NUM_THREADS: '2', OMP_NUM_THREADS: '6' } }))).toEqual([['mkl', 2, 'MKL_NUM_THREADS']]);
    expect(sizes(proc({ runtimes: loaded('mkl'), env: { OMP_NUM_THREADS: '6' } }))).toEqual([['mkl', 6, 'OMP_NUM_THREADS']]);
    expect(sizes(proc({ runtimes: loaded('mkl'), env: { MKL_NUM_THREADS: '16' } }))).toEqual([['mkl', 8, 'MKL_NUM_THREADS']]);
    expect(sizes(proc({ runtimes: loaded('mkl'), env: { MKL_NUM_THREADS: '16', MKL_DYNAMIC: 'FALSE' } }))).toEqual([['mkl', 16, 'MKL_NUM_THREADS']]);
  });

  test('OpenBLAS (pthreads) reads OPENBLAS_NUM_THREADS, then GOTO_NUM_THREADS, then OMP_NUM_THREADS, capped at its affinity', () => {
    const openblas = (env: Record<string, string>) => sizes(proc({ runtimes: loaded('openblas-pthreads'), env }));
    expect(openblas({ OPENBLAS_NUM_THREADS: '3', GOTO_NUM_THREADS: '5', OMP_NUM_THREADS: '7' })).toEqual([['openblas-pthreads', 3, 'OPENBLAS_NUM_THREADS']]);
    expect(openblas({ GOTO_NUM_THREADS: '5', OMP_NUM_THREADS: '7' })).toEqual([['openblas-pthreads', 5, 'GOTO_NUM_THREADS']]);
    expect(openblas({ OMP_NUM_THREADS: '7' })).toEqual([['openblas-pthreads', 7, 'OMP_NUM_THREADS']]);
    expect(openblas({ OPENBLAS_NUM_THREADS: '64' })).toEqual([['openblas-pthreads', 16, 'OPENBLAS_NUM_THREADS']]);
  });

  test('an OpenMP build of OpenBLAS ignores OPENBLAS_NUM_THREADS', () => {
    expect(sizes(proc({ runtimes: loaded('openblas-openmp'), env: { OPENBLAS_NUM_THREADS: '2', OMP_NUM_THREADS: '6' } })))
      .toEqual([['openblas-openmp', 6, 'OMP_NUM_THREADS']]);
  });

  test('OpenBLAS of unknown threading is sized only when both builds would agree, and otherwise named as unsized', () => {
    expect(sizes(proc({ runtimes: loaded('openblas'), env: { OMP_NUM_THREADS: '4' } }))).toEqual([['openblas', 4, 'OMP_NUM_THREADS']]);
    const conflicting = proc({ runtimes: loaded('openblas'), env: { OPENBLAS_NUM_THREADS: '2', OMP_NUM_THREADS: '4' } });
    expect(sizes(conflicting)).toEqual([]);
    expect(unsized(conflicting)).toEqual([['openblas', 'threading unknown: 2 threads as a pthreads build, 4 threads as an OpenMP build']]);
  });

  test('partial knowledge: the framework pool is sized when the BLAS beneath it cannot be (PyTorch over GNU OpenMP, pinned to one CPU)', () => {
    // Debian's python3-torch as the agent once reported it: OpenBLAS of unknown threading beside libgomp.
    const torch = proc({ runtimes: loaded('gnu-openmp', 'openblas', 'onednn', 'pytorch'), env: { OMP_NUM_THREADS: '8' }, cpusAllowedList: '0', cpusAllowedCount: 1 });
    expect(sizes(torch)).toEqual([['pytorch', 8, 'OMP_NUM_THREADS'], ['gnu-openmp', 8, 'OMP_NUM_THREADS']]);
    expect(unsized(torch)).toEqual([['openblas', 'threading unknown: 1 thread as a pthreads build, 8 threads as an OpenMP build']]);
    expect(largestPool(intraOpPools(torch, host16([torch]))!.sized)!.runtime).toBe('pytorch');
  });

  test('BLIS reads BLIS_NUM_THREADS, then OMP_NUM_THREADS, and is single-threaded without either', () => {
    expect(sizes(proc({ runtimes: loaded('blis'), env: { BLIS_NUM_THREADS: '3', OMP_NUM_THREADS: '5' } }))).toEqual([['blis', 3, 'BLIS_NUM_THREADS']]);
    expect(sizes(proc({ runtimes: loaded('blis') }))).toEqual([['blis', 1, null]]);
  });

  test('TensorFlow reads TF_NUM_INTRAOP_THREADS and otherwise takes the CPUs of its affinity mask', () => {
    expect(sizes(proc({ runtimes: loaded('tensorflow'), env: { TF_NUM_INTRAOP_THREADS: '3', OMP_NUM_THREADS: '9' } }))).toEqual([['tensorflow', 3, 'TF_NUM_INTRAOP_THREADS']]);
    expect(sizes(proc({ runtimes: loaded('tensorflow'), cpusAllowedList: '0-3', cpusAllowedCount: 4 }))).toEqual([['tensorflow', 4, null]]);
  });

  test('PyTorch: MKL_NUM_THREADS wins over OMP_NUM_THREADS; unset, MKL builds take physical cores in the mask, others the host physical cores', () => {
    expect(sizes(proc({ runtimes: loaded('pytorch'), env: { MKL_NUM_THREADS: '2', OMP_NUM_THREADS: '6' } }))).toEqual([['pytorch', 2, 'MKL_NUM_THREADS']]);
    const pinned = { cpusAllowedList: '0-3', cpusAllowedCount: 4 };
    expect(sizes(proc({ runtimes: loaded('pytorch', 'gnu-openmp'), ...pinned }))).toEqual([['pytorch', 8, null], ['gnu-openmp', 4, null]]);
    expect(sizes(proc({ runtimes: loaded('pytorch', 'mkl', 'intel-openmp'), ...pinned }))).toEqual([['pytorch', 4, null], ['mkl', 4, null], ['intel-openmp', 4, null]]);
  });

  test('ONNX Runtime has no variable: its pool is the host physical cores unless set in code', () => {
    expect(sizes(proc({ runtimes: loaded('onnxruntime'), env: { OMP_NUM_THREADS: '2' }, cpusAllowedList: '0-1', cpusAllowedCount: 2 }))).toEqual([['onnxruntime', 8, null]]);
  });

  test('a runtime without a pool of its own (oneDNN) adds none; a process with no threaded runtime has no pools', () => {
    expect(sizes(proc({ runtimes: loaded('onednn') }))).toEqual([]);
    expect(sizes(proc({ runtimes: [] }))).toEqual([]);
  });

  test('unknowable: no runtimes reported (an older agent), maps unreadable, environment unreadable', () => {
    expect(sizes(proc({ runtimes: undefined }))).toBeNull();
    expect(sizes(proc({ runtimes: undefined, runtimesUnreadable: 'EACCES' }))).toBeNull();
    expect(sizes(proc({ runtimes: loaded('gnu-openmp'), envUnreadable: 'environ: EACCES' }))).toBeNull();
  });

  test('a host physical core count the CPU inventory cannot give leaves such pools unsized, and the others sized', () => {
    const p = proc({ runtimes: loaded('onnxruntime', 'gnu-openmp'), env: { OMP_NUM_THREADS: '2' } });
    const noCpu = host16([p], { cpu: { unavailable: 'cpu inventory: /proc/cpuinfo not readable' } });
    expect(sizes(p, noCpu)).toEqual([['gnu-openmp', 2, 'OMP_NUM_THREADS']]);
    expect(unsized(p, noCpu)).toEqual([['onnxruntime', "its default is the host's physical cores, which the CPU inventory does not give"]]);
  });

  test('invalid or non-positive values are ignored as the runtimes ignore them', () => {
    expect(parseThreadCount('0')).toBeNull();
    expect(parseThreadCount('four')).toBeNull();
    expect(parseThreadCount(' 12 ')).toBe(12);
    expect(sizes(proc({ runtimes: loaded('gnu-openmp'), env: { OMP_NUM_THREADS: 'auto' } }))).toEqual([['gnu-openmp', 16, null]]);
  });
});

describe('largestPool and describePool', () => {
  test('the largest pool wins, the framework on a tie; a default pool says what it counted', () => {
    const p = proc({ runtimes: loaded('gnu-openmp', 'pytorch'), env: { OMP_NUM_THREADS: '6' } });
    const pool = largestPool(intraOpPools(p, host16([p]))!.sized)!;
    expect([pool.runtime, describePool(pool), pool.setting(2)]).toEqual(['pytorch', 'OMP_NUM_THREADS=6', 'torch.set_num_threads(2) (or OMP_NUM_THREADS=2)']);
    const unset = largestPool(intraOpPools(proc({ runtimes: loaded('gnu-openmp') }), host16([]))!.sized)!;
    expect(describePool(unset)).toBe('OMP_NUM_THREADS unset (16 = the CPUs it may run on)');
  });
});

describe('usableCpus', () => {
  test('min of the affinity mask, the cgroup (the process\'s, else the host\'s) and the online CPUs', () => {
    const pinned = proc({ cpusAllowedList: '0-3', cpusAllowedCount: 4, cgroup: { path: '/docker/abc', version: 2, quotaCores: 2.5, cpusetCpus: '0-3', effectiveCpus: 2.5 } });
    expect(usableCpus([pinned], host16([pinned]))).toEqual({ count: 2.5, cpuset: [0, 1, 2, 3], quotaCores: 2.5, online: 16 });
    expect(describeUsable(usableCpus([pinned], host16([pinned])))).toBe('2.5 usable CPUs (cpuset 0–3, quota 2.5)');
    const hostQuota = host16([proc({})], { cgroup: { path: '/', version: 2, quotaCores: 4, cpusetCpus: null, effectiveCpus: 4 } });
    expect(describeUsable(usableCpus(hostQuota.processes, hostQuota))).toBe('4 usable CPUs (quota 4)');
    expect(describeUsable(usableCpus([proc({})], host16([])))).toBe('16 usable CPUs (no cpuset or quota)');
  });

  test('workers together: the union of their masks, each distinct cgroup counted once', () => {
    const a = proc({ pid: 1, cpusAllowedList: '0-1', cpusAllowedCount: 2 });
    const b = proc({ pid: 2, cpusAllowedList: '2-3', cpusAllowedCount: 2 });
    expect(usableCpus([a, b], host16([a, b])).count).toBe(4);
    const group = (path: string) => ({ path, version: 2 as const, quotaCores: 1, cpusetCpus: null, effectiveCpus: 1 });
    const c = proc({ pid: 3, cgroup: group('/a') });
    const d = proc({ pid: 4, cgroup: group('/b') });
    const e = proc({ pid: 5, cgroup: group('/b') });
    expect(usableCpus([c, d, e], host16([c, d, e]))).toMatchObject({ count: 2, quotaCores: 2 });
  });

  test('a missing or unreadable CPU list counts as all online CPUs', () => {
    expect(usableCpus([proc({ cpusAllowedList: '', cpusAllowedCount: 0 })], host16([])).count).toBe(16);
  });
});

describe('derived facts are computed once per process and inventory', () => {
  test('the same process object judged in another inventory is judged afresh', () => {
    const p = proc({ runtimes: loaded('gnu-openmp'), cpusAllowedList: '0-15', cpusAllowedCount: 16 });
    const small = host16([p], { host: { kernel: null, memTotalBytes: null, onlineCpus: 4 } });
    expect(intraOpPools(p, host16([p]))!.sized[0]!.threads).toBe(16);
    expect(intraOpPools(p, small)!.sized[0]!.threads).toBe(4);
    expect(usableCpus([p], host16([p])).count).toBe(16);
    expect(usableCpus([p], small).count).toBe(4);
  });

  test('one inventory asked twice gives the same answer object', () => {
    const p = proc({ runtimes: loaded('gnu-openmp') });
    const inventory = host16([p]);
    expect(intraOpPools(p, inventory)).toBe(intraOpPools(p, inventory));
  });
});

describe('servicesOf and fittingThreads', () => {
  test('workers share a watch name; the threads that fit are the usable CPUs shared out, at least one', () => {
    const inventory = host16([proc({ pid: 1 }), proc({ pid: 2 }), proc({ pid: 3, name: 'ranker' })]);
    expect([...servicesOf(inventory)].map(([name, workers]) => [name, workers.length])).toEqual([['serve.py', 2], ['ranker', 1]]);
    expect(fittingThreads(4, 2)).toBe(2);
    expect(fittingThreads(2.5, 1)).toBe(2);
    expect(fittingThreads(2, 3)).toBe(1);
  });
});
