import { describe, expect, test } from 'vitest';
import type { ProcessInventory } from '../../protocol';
import { cleanInventory, defaultsOf, hostFacts, loaded, ruleContext, watchedProcess } from '../../../tests/support/findings-facts';
import { tfInterOp } from './threads.tf-inter-op';

const t = defaultsOf(tfInterOp.defaults);
const tf = (patch: Partial<ProcessInventory> = {}) => watchedProcess({ runtimes: loaded('tensorflow', 'onednn'), env: { TF_NUM_INTRAOP_THREADS: '8' }, ...patch });
const judge = (processes: ProcessInventory[], thresholds = t) => tfInterOp.evaluate(hostFacts({ inventory: cleanInventory({ processes }) }), thresholds, ruleContext());

describe('threads.tf-inter-op', () => {
  test('a clean host (PyTorch, no TensorFlow) raises nothing', () => {
    expect(tfInterOp.evaluate(hostFacts(), t, ruleContext())).toEqual([]);
  });

  test('TensorFlow with TF_NUM_INTEROP_THREADS unset: one per CPU of its mask, the article\'s 1 suggested, code settings acknowledged', () => {
    const [v] = judge([tf({ cpusAllowedList: '0-5', cpusAllowedCount: 6 })]);
    expect(v).toMatchObject({ subject: 'serve.py', severity: 'info', value: 6 });
    expect(v!.message).toBe(
      'serve.py (pid 4242) loads TensorFlow with TF_NUM_INTEROP_THREADS unset, so TensorFlow starts one inter-op thread per CPU it may run on (6). ' +
        'For single-stream CNN serving the article sets inter_op_parallelism_threads=1: such a graph runs its operations one after another, so more inter-op threads only add overhead.',
    );
    expect(v!.remedy).toContain('TF_NUM_INTEROP_THREADS=1');
    expect(v!.remedy).toContain('invisible to the agent: if you set it there, acknowledge this finding');
  });

  test('TF_NUM_INTEROP_THREADS above 1 is named; 1 passes', () => {
    expect(judge([tf({ env: { TF_NUM_INTEROP_THREADS: '2' } })])[0]!.message).toMatch(/^serve\.py \(pid 4242\) loads TensorFlow with TF_NUM_INTEROP_THREADS=2\. /);
    expect(judge([tf({ env: { TF_NUM_INTEROP_THREADS: '1' } })])).toEqual([]);
  });

  test('an invalid or zero value is TensorFlow\'s default, as TensorFlow reads it', () => {
    expect(judge([tf({ env: { TF_NUM_INTEROP_THREADS: '0' } })])[0]!.value).toBe(8);
  });

  test('a one-CPU process has one inter-op thread anyway', () => {
    expect(judge([tf({ cpusAllowedList: '3', cpusAllowedCount: 1 })])).toEqual([]);
  });

  test('maxThreads from the caller: a throughput service may allow more', () => {
    expect(judge([tf({ env: { TF_NUM_INTEROP_THREADS: '2' } })], { maxThreads: 2 })).toEqual([]);
  });

  test('one finding per service, and nothing without TensorFlow or where runtimes or environment are unreadable', () => {
    expect(judge([tf({ pid: 1 }), tf({ pid: 2 })])).toHaveLength(1);
    expect(judge([tf({ runtimes: loaded('pytorch', 'gnu-openmp') })])).toEqual([]);
    expect(judge([tf({ runtimes: undefined })])).toEqual([]);
    expect(judge([tf({ runtimes: undefined, runtimesUnreadable: 'EACCES' })])).toEqual([]);
    expect(judge([tf({ envUnreadable: 'environ: EACCES' })])).toEqual([]);
  });
});
