import { describe, expect, test } from 'vitest';
import type { ProcessInventory } from '../../protocol';
import { cleanInventory, cleanWindow, defaultsOf, hostFacts, ruleContext, watchedProcess } from '../../../tests/support/findings-facts';
import { threadsCountHigh } from './threads.count-high';

const t = defaultsOf(threadsCountHigh.defaults);
const pinned = { cpusAllowedList: '0-3', cpusAllowedCount: 4 };
const facts = (process: ProcessInventory, threadsMax: number | null, more: ProcessInventory[] = []) =>
  hostFacts({
    inventory: cleanInventory({ processes: [process, ...more] }),
    window: threadsMax === null ? null : cleanWindow({ processes: [{ name: process.name, pid: process.pid, threadsMax, cpuCores: 3 }] }),
  });
const judge = (process: ProcessInventory, threadsMax: number | null, open: string[] = [], thresholds = t) =>
  threadsCountHigh.evaluate(facts(process, threadsMax), thresholds, ruleContext(open));

describe('threads.count-high', () => {
  test('a clean host raises nothing', () => {
    expect(threadsCountHigh.evaluate(hostFacts(), t, ruleContext())).toEqual([]);
  });

  test('the window peak far above the usable CPUs warns, with the pools the threads come from', () => {
    const [v] = judge(watchedProcess(pinned), 72);
    expect(v).toMatchObject({ subject: 'serve.py', severity: 'warning', value: 18 });
    expect(v!.message).toBe(
      'serve.py (pid 4242) ran up to 72 threads in 5 min on 4 usable CPUs (cpuset 0–3): 18 per CPU; ' +
        'its intra-op pools: OMP_NUM_THREADS=8 (PyTorch, Intel MKL, Intel OpenMP (libiomp5)).',
    );
    expect(v!.remedy).toContain('ps -T -p 4242');
    expect(v!.evidence.window).toBeDefined();
    expect(v!.evidence.series).toContainEqual({ metric: 'process_threads', key: 'serve.py' });
  });

  test('without samples the inventory count is judged, and no pools are named when the runtimes are unknown', () => {
    const [v] = judge(watchedProcess({ ...pinned, threads: 40, runtimes: undefined }), null);
    expect(v!.message).toBe('serve.py (pid 4242) had 40 threads on 4 usable CPUs (cpuset 0–3): 10 per CPU.');
    expect(v!.evidence.window).toBeUndefined();
  });

  test('exactly 4 per CPU does not raise; above does', () => {
    expect(judge(watchedProcess({ ...pinned, cpusAllowedList: '0-7', cpusAllowedCount: 8 }), 32)).toEqual([]);
    expect(judge(watchedProcess({ ...pinned, cpusAllowedList: '0-7', cpusAllowedCount: 8 }), 33)).toHaveLength(1);
  });

  test('fewer than 32 threads never raise, however few the CPUs', () => {
    expect(judge(watchedProcess({ ...pinned, cpusAllowedList: '0', cpusAllowedCount: 1 }), 31)).toEqual([]);
    expect(judge(watchedProcess({ ...pinned, cpusAllowedList: '0', cpusAllowedCount: 1 }), 32)).toHaveLength(1);
  });

  test('hysteresis: open, it stays open above 3 per CPU and clears below', () => {
    const eight = watchedProcess({ cpusAllowedList: '0-9', cpusAllowedCount: 10 });
    const ten = { ...cleanInventory().host, onlineCpus: 10 };
    const at = (threads: number, open: string[]) =>
      threadsCountHigh.evaluate(
        hostFacts({ inventory: cleanInventory({ host: ten, processes: [eight], cgroup: { path: '/', version: 2, quotaCores: null, cpusetCpus: null, effectiveCpus: 10 } }), window: cleanWindow({ processes: [{ name: 'serve.py', pid: 4242, threadsMax: threads, cpuCores: 3 }] }) }),
        t,
        ruleContext(open),
      );
    expect(at(35, [])).toEqual([]);
    expect(at(35, ['serve.py'])).toHaveLength(1);
    expect(at(29, ['serve.py'])).toEqual([]);
  });

  test('the worst worker of a service names the finding', () => {
    const a = watchedProcess({ pid: 1, ...pinned });
    const b = watchedProcess({ pid: 2, cpusAllowedList: '4-5', cpusAllowedCount: 2 });
    const window = cleanWindow({ processes: [{ name: 'serve.py', pid: 1, threadsMax: 40, cpuCores: 1 }, { name: 'serve.py', pid: 2, threadsMax: 40, cpuCores: 1 }] });
    const [v] = threadsCountHigh.evaluate(hostFacts({ inventory: cleanInventory({ processes: [a, b] }), window }), t, ruleContext());
    expect(v!.message).toMatch(/^serve\.py \(pid 2\) ran up to 40 threads in 5 min on 2 usable CPUs \(cpuset 4–5\): 20 per CPU/);
  });

  test('thresholds come from the caller', () => {
    expect(judge(watchedProcess(pinned), 40, [], { ...t, maxPerCpu: 12 })).toEqual([]);
  });
});
