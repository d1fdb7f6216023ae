import { describe, expect, test } from 'vitest';
import type { ProcessInventory } from '../../protocol';
import { cleanInventory, defaultsOf, hostFacts, loaded, ruleContext, watchedProcess } from '../../../tests/support/findings-facts';
import { threadsOversubscribed } from './threads.oversubscribed';

const t = defaultsOf(threadsOversubscribed.defaults);
const container = { path: '/docker/3f2a', version: 2 as const, quotaCores: 4, cpusetCpus: '0-3', effectiveCpus: 4 };
const worker = (pid: number, patch: Partial<ProcessInventory> = {}) =>
  watchedProcess({ pid, cpusAllowedList: '0-3', cpusAllowedCount: 4, cgroup: container, ...patch });
const judge = (processes: ProcessInventory[], thresholds = t, open: string[] = []) =>
  threadsOversubscribed.evaluate(hostFacts({ inventory: cleanInventory({ processes }) }), thresholds, ruleContext(open));
const withOmp = (n: string) => ({ env: { OMP_NUM_THREADS: n, KMP_BLOCKTIME: '1' } });

describe('threads.oversubscribed', () => {
  test('a clean host raises nothing', () => {
    expect(threadsOversubscribed.evaluate(hostFacts(), t, ruleContext())).toEqual([]);
  });

  test('OMP_NUM_THREADS=16 × 2 workers on a 4-CPU container is critical, names the runtime and gives the value that fits', () => {
    const [v] = judge([worker(1, withOmp('16')), worker(2, withOmp('16'))]);
    expect(v).toMatchObject({ subject: 'serve.py', severity: 'critical', value: 8 });
    expect(v!.message).toBe(
      'OMP_NUM_THREADS=16 × 2 workers on 4 usable CPUs (cpuset 0–3, quota 4): serve.py runs 32 PyTorch intra-op threads, 8 per CPU it may use.',
    );
    expect(v!.remedy).toContain('torch.set_num_threads(2) (or OMP_NUM_THREADS=2) (4 usable CPUs ÷ 2 workers)');
    expect(v!.evidence.series).toEqual([{ metric: 'process_threads', key: 'serve.py' }, { metric: 'process_cpu', key: 'serve.py' }]);
  });

  test('the variable that wins is the one named: MKL_NUM_THREADS over OMP_NUM_THREADS for MKL', () => {
    const env = { env: { MKL_NUM_THREADS: '6', OMP_NUM_THREADS: '1', MKL_DYNAMIC: 'FALSE' } };
    const [v] = judge([worker(1, { runtimes: loaded('mkl'), ...env })]);
    expect(v!.message).toMatch(/^MKL_NUM_THREADS=6 × 1 worker on 4 usable CPUs .* Intel MKL intra-op threads, 1.5 per CPU/);
    expect(v!.severity).toBe('warning');
    expect(v!.remedy).toContain('MKL_NUM_THREADS=4 (4 usable CPUs ÷ 1 worker)');
  });

  test('the threads that fit are at least one even when workers outnumber the CPUs', () => {
    const workers = [1, 2, 3, 4, 5, 6].map((pid) => worker(pid, withOmp('1')));
    const [v] = judge(workers);
    expect(v).toMatchObject({ severity: 'warning', value: 1.5 });
    expect(v!.remedy).toContain('torch.set_num_threads(1) (or OMP_NUM_THREADS=1) (4 usable CPUs ÷ 6 workers)');
  });

  test('exactly as many threads as usable CPUs does not raise; one more does', () => {
    expect(judge([worker(1, withOmp('2')), worker(2, withOmp('2'))])).toEqual([]);
    expect(judge([worker(1, withOmp('2')), worker(2, withOmp('3'))])[0]!.message).toMatch(
      /^OMP_NUM_THREADS=2 \+ OMP_NUM_THREADS=3 across 2 workers on 4 usable CPUs/,
    );
  });

  test('critical from twice the usable CPUs', () => {
    expect(judge([worker(1, withOmp('4')), worker(2, withOmp('4'))])[0]!.severity).toBe('critical');
    expect(judge([worker(1, withOmp('4')), worker(2, withOmp('3'))])[0]!.severity).toBe('warning');
  });

  test('hysteresis: with a higher raise threshold an open finding stays open between clear and raise', () => {
    const raised = { ...t, warningRatio: 1.5 };
    const processes = [worker(1, withOmp('3')), worker(2, withOmp('2'))];
    expect(judge(processes, raised)).toEqual([]);
    expect(judge(processes, raised, ['serve.py'])).toHaveLength(1);
    expect(judge([worker(1, withOmp('2')), worker(2, withOmp('2'))], raised, ['serve.py'])).toEqual([]);
  });

  test('workers pinned to their own CPUs are judged against the CPUs they have together', () => {
    const own = (pid: number, cpus: string) => worker(pid, { ...withOmp('2'), cpusAllowedList: cpus, cgroup: null });
    expect(judge([own(1, '0-1'), own(2, '2-3')])).toEqual([]);
  });

  test('workers of different services are judged apart', () => {
    expect(judge([worker(1, withOmp('4')), worker(2, { ...withOmp('4'), name: 'ranker' })])).toEqual([]);
  });

  test('a single process on its runtimes\' defaults is left to threads.unset-in-quota', () => {
    expect(judge([worker(1, { runtimes: loaded('gnu-openmp'), env: {}, cpusAllowedList: '0-7', cpusAllowedCount: 8 })])).toEqual([]);
  });

  test('several workers on their defaults do count: each starts a pool the size of the host', () => {
    const unset = (pid: number) => watchedProcess({ pid, runtimes: loaded('gnu-openmp'), env: {} });
    const [v] = judge([unset(1), unset(2)]);
    expect(v!.message).toBe(
      'OMP_NUM_THREADS unset (8 = the CPUs it may run on) × 2 workers on 8 usable CPUs (no cpuset or quota): serve.py runs 16 GNU OpenMP (libgomp) intra-op threads, 2 per CPU it may use.',
    );
  });

  test('says nothing where the pool cannot be known: no runtimes reported, maps or environment unreadable', () => {
    const big = withOmp('64');
    expect(judge([worker(1, { ...big, runtimes: undefined })])).toEqual([]);
    expect(judge([worker(1, { ...big, runtimes: undefined, runtimesUnreadable: 'EACCES' })])).toEqual([]);
    expect(judge([worker(1, { ...big, envUnreadable: 'EACCES' })])).toEqual([]);
    expect(judge([worker(1, big), worker(2, { ...big, runtimes: undefined })])).toEqual([]);
  });

  test('PyTorch pinned to one CPU with OMP_NUM_THREADS=8 is named although the OpenBLAS beneath it cannot be sized', () => {
    // Debian's python3-torch as the agent reported it before OpenBLAS builds were told apart by their folder.
    const torch = worker(1, { runtimes: loaded('gnu-openmp', 'openblas', 'onednn', 'pytorch'), env: { OMP_NUM_THREADS: '8' }, cpusAllowedList: '0', cpusAllowedCount: 1, cgroup: undefined });
    const [v] = judge([torch]);
    expect(v).toMatchObject({ subject: 'serve.py', severity: 'critical', value: 8 });
    expect(v!.message).toBe(
      'OMP_NUM_THREADS=8 × 1 worker on 1 usable CPU (cpuset 0): serve.py runs 8 PyTorch intra-op threads, 8 per CPU it may use, ' +
        'not counting OpenBLAS (threading unknown: 1 thread as a pthreads build, 8 threads as an OpenMP build).',
    );
    expect(v!.remedy).toContain('torch.set_num_threads(1) (or OMP_NUM_THREADS=1)');
    expect(v!.evidence.values).toContainEqual({ label: 'pools not sized', value: 'OpenBLAS (threading unknown: 1 thread as a pthreads build, 8 threads as an OpenMP build)' });
  });

  test('its well-sized twin (OMP_NUM_THREADS=1) raises nothing, and nothing is judged when no pool at all can be sized', () => {
    const runtimes = loaded('gnu-openmp', 'openblas', 'onednn', 'pytorch');
    const pinned = { cpusAllowedList: '0', cpusAllowedCount: 1, cgroup: undefined };
    expect(judge([worker(1, { runtimes, env: { OMP_NUM_THREADS: '1' }, ...pinned })])).toEqual([]);
    expect(judge([worker(1, { runtimes: loaded('openblas'), env: { OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '8' }, ...pinned })])).toEqual([]);
  });

  test('a process without a threaded runtime raises nothing, whatever OMP_NUM_THREADS says', () => {
    expect(judge([worker(1, { ...withOmp('64'), runtimes: loaded('onednn') })])).toEqual([]);
  });
});
