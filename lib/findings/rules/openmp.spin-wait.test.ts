import { describe, expect, test } from 'vitest';
import type { ProcessInventory } from '../../protocol';
import { cleanInventory, defaultsOf, hostFacts, loaded, ruleContext, watchedProcess } from '../../../tests/support/findings-facts';
import { gompSpinWait, kmpSpinWait, parseGompSpincount, parseKmpBlocktimeMs, spinWait } from './openmp.spin-wait';

const t = defaultsOf(spinWait.defaults);
const judge = (processes: ProcessInventory[], thresholds = t) => spinWait.evaluate(hostFacts({ inventory: cleanInventory({ processes }) }), thresholds, ruleContext());
const iomp = (env: Record<string, string>, patch: Partial<ProcessInventory> = {}) =>
  watchedProcess({ runtimes: loaded('pytorch', 'intel-openmp', 'mkl'), env: { OMP_NUM_THREADS: '8', ...env }, ...patch });
const gomp = (env: Record<string, string>, patch: Partial<ProcessInventory> = {}) =>
  watchedProcess({ runtimes: loaded('pytorch', 'gnu-openmp'), env: { OMP_NUM_THREADS: '8', ...env }, ...patch });

describe('parsing the spin knobs as the runtimes do', () => {
  test('KMP_BLOCKTIME: ms by default, unit suffixes, infinite; anything else is not a value', () => {
    expect(parseKmpBlocktimeMs('0')).toBe(0);
    expect(parseKmpBlocktimeMs('200')).toBe(200);
    expect(parseKmpBlocktimeMs('500us')).toBe(0.5);
    expect(parseKmpBlocktimeMs('2s')).toBe(2000);
    expect(parseKmpBlocktimeMs('infinite')).toBe(Infinity);
    expect(parseKmpBlocktimeMs('fast')).toBeNull();
  });

  test('GOMP_SPINCOUNT: counts with k/M/G/T, INFINITE or INFINITY', () => {
    expect(parseGompSpincount('10000')).toBe(10_000);
    expect(parseGompSpincount('30G')).toBe(30e9);
    expect(parseGompSpincount('2k')).toBe(2000);
    expect(parseGompSpincount('INFINITY')).toBe(Infinity);
    expect(parseGompSpincount('lots')).toBeNull();
  });

  test('libiomp5: KMP_BLOCKTIME wins; unset, OMP_WAIT_POLICY decides; neither, 200 ms', () => {
    expect(kmpSpinWait({ KMP_BLOCKTIME: '5', OMP_WAIT_POLICY: 'PASSIVE' }).amount).toBe(5);
    expect(kmpSpinWait({ OMP_WAIT_POLICY: 'passive' }).amount).toBe(0);
    expect(kmpSpinWait({ OMP_WAIT_POLICY: 'ACTIVE' }).amount).toBe(Infinity);
    expect(kmpSpinWait({})).toEqual({ amount: 200, decidedBy: 'KMP_BLOCKTIME unset' });
    expect(kmpSpinWait({ KMP_BLOCKTIME: 'fast', OMP_WAIT_POLICY: 'PASSIVE' }).amount).toBe(200);
  });

  test('libgomp: GOMP_SPINCOUNT wins; unset, 0 under PASSIVE, 30 billion under ACTIVE, 300,000 otherwise', () => {
    expect(gompSpinWait({ GOMP_SPINCOUNT: '1000', OMP_WAIT_POLICY: 'ACTIVE' }).amount).toBe(1000);
    expect(gompSpinWait({ OMP_WAIT_POLICY: 'PASSIVE' }).amount).toBe(0);
    expect(gompSpinWait({ OMP_WAIT_POLICY: 'active' }).amount).toBe(30e9);
    expect(gompSpinWait({}).amount).toBe(300_000);
    expect(gompSpinWait({ GOMP_SPINCOUNT: 'lots' }).amount).toBe(300_000);
  });
});

describe('openmp.spin-wait', () => {
  test('a clean host (KMP_BLOCKTIME=1) raises nothing', () => {
    expect(spinWait.evaluate(hostFacts(), t, ruleContext())).toEqual([]);
  });

  test('Intel OpenMP with KMP_BLOCKTIME unset: 200 ms of spinning, the article\'s 0 and the launcher\'s 1 in the remedy', () => {
    const [v] = judge([iomp({})]);
    expect(v).toMatchObject({ subject: 'serve.py', severity: 'warning', value: 200 });
    expect(v!.message).toBe(
      'serve.py (pid 4242) loads Intel OpenMP (libiomp5) with KMP_BLOCKTIME unset: its idle threads spin 200 ms after each parallel region before they sleep, holding CPUs that other requests and workers need.',
    );
    expect(v!.remedy).toContain('KMP_BLOCKTIME=0');
    expect(v!.remedy).toContain('KMP_BLOCKTIME=1');
  });

  test('threshold 1 ms: 0 and 1 pass, 2 and infinite fail; OMP_WAIT_POLICY=PASSIVE passes, ACTIVE fails', () => {
    expect(judge([iomp({ KMP_BLOCKTIME: '0' })])).toEqual([]);
    expect(judge([iomp({ KMP_BLOCKTIME: '1' })])).toEqual([]);
    expect(judge([iomp({ KMP_BLOCKTIME: '2' })])[0]!.value).toBe(2);
    const [infinite] = judge([iomp({ KMP_BLOCKTIME: 'infinite' })]);
    expect(infinite!.message).toContain('with KMP_BLOCKTIME=infinite: its idle threads never stop spinning between parallel regions');
    expect(infinite!.value).toBeNull();
    expect(judge([iomp({ OMP_WAIT_POLICY: 'PASSIVE' })])).toEqual([]);
    expect(judge([iomp({ OMP_WAIT_POLICY: 'ACTIVE' })])[0]!.message).toContain('with OMP_WAIT_POLICY=ACTIVE and KMP_BLOCKTIME unset');
  });

  test('LLVM OpenMP (libomp) shares the knob and its 200 ms default', () => {
    expect(judge([iomp({}, { runtimes: loaded('llvm-openmp') })])[0]!.message).toContain('LLVM OpenMP (libomp) with KMP_BLOCKTIME unset');
  });

  test('GNU OpenMP: its default passes; OMP_WAIT_POLICY=ACTIVE, a larger or infinite GOMP_SPINCOUNT fail', () => {
    expect(judge([gomp({})])).toEqual([]);
    expect(judge([gomp({ GOMP_SPINCOUNT: '300000' })])).toEqual([]);
    const [active] = judge([gomp({ OMP_WAIT_POLICY: 'ACTIVE' })]);
    expect(active!.message).toBe(
      'serve.py (pid 4242) loads GNU OpenMP (libgomp) with OMP_WAIT_POLICY=ACTIVE: its idle threads spin 30 billion times before they sleep, holding CPUs that other requests and workers need.',
    );
    expect(active!.remedy).toContain('OMP_WAIT_POLICY=PASSIVE');
    expect(active!.remedy).not.toContain('KMP_BLOCKTIME=1');
    expect(judge([gomp({ GOMP_SPINCOUNT: '300001' })])).toHaveLength(1);
    expect(judge([gomp({ GOMP_SPINCOUNT: 'INFINITE' })])[0]!.message).toContain('never stop spinning');
  });

  test('the Intel finding is never raised for a process without libiomp5: libgomp only, or OpenBLAS pthreads only', () => {
    expect(judge([gomp({ KMP_BLOCKTIME: '200' })])).toEqual([]);
    expect(judge([watchedProcess({ runtimes: loaded('openblas-pthreads'), env: { OPENBLAS_NUM_THREADS: '4' } })])).toEqual([]);
    expect(judge([watchedProcess({ runtimes: loaded('openblas-pthreads'), env: { OMP_WAIT_POLICY: 'ACTIVE' } })])).toEqual([]);
  });

  test('both runtimes in one process are both named', () => {
    const [v] = judge([iomp({ OMP_WAIT_POLICY: 'ACTIVE' }, { runtimes: loaded('intel-openmp', 'gnu-openmp') })]);
    expect(v!.message).toContain('Intel OpenMP (libiomp5) with OMP_WAIT_POLICY=ACTIVE and KMP_BLOCKTIME unset');
    expect(v!.message).toContain('GNU OpenMP (libgomp) with OMP_WAIT_POLICY=ACTIVE');
  });

  test('a one-thread pool has nobody to spin', () => {
    expect(judge([iomp({ OMP_NUM_THREADS: '1' })])).toEqual([]);
  });

  test('thresholds from the caller', () => {
    expect(judge([iomp({ KMP_BLOCKTIME: '50' })], { ...t, maxBlocktimeMs: 50 })).toEqual([]);
  });

  test('says nothing where runtimes or environment are unknown', () => {
    expect(judge([iomp({}, { runtimes: undefined })])).toEqual([]);
    expect(judge([iomp({}, { runtimes: undefined, runtimesUnreadable: 'EACCES' })])).toEqual([]);
    expect(judge([iomp({}, { envUnreadable: 'EACCES' })])).toEqual([]);
  });
});
