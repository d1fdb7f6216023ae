import { describe, expect, test } from 'vitest';
import type { Inventory, ProcessInventory } from '../../protocol';
import { cleanInventory, hostFacts, loaded, ruleContext, watchedProcess } from '../../../tests/support/findings-facts';
import { affinityUnset } from './openmp.affinity-unset';

const judge = (processes: ProcessInventory[], patch: Partial<Inventory> = {}) =>
  affinityUnset.evaluate(hostFacts({ inventory: cleanInventory({ processes, ...patch }) }), {}, ruleContext());
const iomp = (env: Record<string, string> = {}, patch: Partial<ProcessInventory> = {}) =>
  watchedProcess({ runtimes: loaded('pytorch', 'intel-openmp', 'mkl'), env: { OMP_NUM_THREADS: '8', KMP_BLOCKTIME: '1', ...env }, ...patch });
const gomp = (env: Record<string, string> = {}, patch: Partial<ProcessInventory> = {}) =>
  watchedProcess({ runtimes: loaded('pytorch', 'gnu-openmp'), env: { OMP_NUM_THREADS: '8', ...env }, ...patch });

describe('openmp.affinity-unset', () => {
  test('a clean host (KMP_AFFINITY set) raises nothing', () => {
    expect(affinityUnset.evaluate(hostFacts(), {}, ruleContext())).toEqual([]);
  });

  test('Intel OpenMP without KMP_AFFINITY or OMP_PROC_BIND: the article\'s KMP_AFFINITY is suggested', () => {
    const [v] = judge([iomp()]);
    expect(v).toMatchObject({ subject: 'serve.py', severity: 'info' });
    expect(v!.message).toBe(
      'serve.py (pid 4242) loads Intel OpenMP (libiomp5) with neither KMP_AFFINITY nor OMP_PROC_BIND set: its 8 threads may move between CPUs 0–7 from one parallel region to the next, leaving their L1/L2 caches behind.',
    );
    expect(v!.remedy).toMatch(/^Bind the threads: KMP_AFFINITY=granularity=fine,compact,1,0\. /);
    expect(judge([iomp({ OMP_PROC_BIND: 'close' })])).toEqual([]);
  });

  test('GNU OpenMP without OMP_PROC_BIND, OMP_PLACES or GOMP_CPU_AFFINITY: OMP_PROC_BIND=close OMP_PLACES=cores', () => {
    const [v] = judge([gomp()]);
    expect(v!.message).toContain('GNU OpenMP (libgomp) with none of OMP_PROC_BIND, OMP_PLACES and GOMP_CPU_AFFINITY set');
    expect(v!.remedy).toContain('OMP_PROC_BIND=close OMP_PLACES=cores');
    expect(v!.remedy).not.toContain('KMP_AFFINITY');
    for (const knob of ['OMP_PROC_BIND', 'OMP_PLACES', 'GOMP_CPU_AFFINITY']) expect(judge([gomp({ [knob]: 'x' })])).toEqual([]);
  });

  test('KMP_AFFINITY means nothing to libgomp, and a process without OpenMP raises nothing', () => {
    expect(judge([gomp({ KMP_AFFINITY: 'granularity=fine,compact,1,0' })])).toHaveLength(1);
    expect(judge([watchedProcess({ runtimes: loaded('openblas-pthreads'), env: {} })])).toEqual([]);
  });

  test('binding is moot on one CPU or with a one-thread pool', () => {
    expect(judge([iomp({}, { cpusAllowedList: '3', cpusAllowedCount: 1 })])).toEqual([]);
    expect(judge([iomp({ OMP_NUM_THREADS: '1' })])).toEqual([]);
  });

  test('a process sharing its CPUs with another watched one is left to pinning.overlap; pinned apart, both are told', () => {
    expect(judge([iomp({}, { pid: 1 }), iomp({}, { pid: 2, name: 'ranker' })])).toEqual([]);
    const apart = judge(
      [iomp({ OMP_NUM_THREADS: '4' }, { pid: 1, cpusAllowedList: '0-3', cpusAllowedCount: 4 }), iomp({ OMP_NUM_THREADS: '4' }, { pid: 2, name: 'ranker', cpusAllowedList: '4-7', cpusAllowedCount: 4 })],
    );
    expect(apart.map((v) => v.subject)).toEqual(['serve.py', 'ranker']);
  });

  test('says nothing where runtimes or environment are unknown', () => {
    expect(judge([iomp({}, { runtimes: undefined })])).toEqual([]);
    expect(judge([iomp({}, { runtimes: undefined, runtimesUnreadable: 'EACCES' })])).toEqual([]);
    expect(judge([iomp({}, { envUnreadable: 'EACCES' })])).toEqual([]);
  });
});
