import { defineHostRule, type Verdict } from '../types';
import { affinityCount, envOf, hostCpusOf, parseThreadCount, runtimesOf } from '../facts/thread-pools';
import { processLabel, servicesOf } from '../facts/services';

export const tfInterOp = defineHostRule({
  id: 'threads.tf-inter-op',
  title: 'TensorFlow inter-op pool larger than one thread',
  category: 'threads',
  severities: ['info'],
  defaults: {
    maxThreads: { value: 1, unit: 'threads', description: 'inter-op threads above which it suggests fewer (1 suits single-stream CNN serving)' },
  },
  openAfterMs: 0,
  needs: 'inventory',
  evaluate(facts, t) {
    const inventory = facts.inventory!.data;
    const host = hostCpusOf(inventory);
    const verdicts: Verdict[] = [];
    for (const [name, workers] of servicesOf(inventory)) {
      for (const worker of workers) {
        const env = envOf(worker);
        if (!env || !runtimesOf(worker)?.has('tensorflow')) continue;
        const set = parseThreadCount(env.TF_NUM_INTEROP_THREADS);
        const threads = set ?? affinityCount(worker, host);
        if (threads <= t.maxThreads) continue;
        const knob = set === null
          ? `TF_NUM_INTEROP_THREADS unset, so TensorFlow starts one inter-op thread per CPU it may run on (${threads})`
          : `TF_NUM_INTEROP_THREADS=${env.TF_NUM_INTEROP_THREADS}`;
        verdicts.push({
          subject: name,
          severity: 'info',
          value: threads,
          message:
            `${processLabel(worker)} loads TensorFlow with ${knob}. For single-stream CNN serving the article sets ` +
            'inter_op_parallelism_threads=1: such a graph runs its operations one after another, so more inter-op threads only add overhead.',
          remedy:
            'Set TF_NUM_INTEROP_THREADS=1 in the service\'s environment, or in code: ' +
            '`tf.config.threading.set_inter_op_parallelism_threads(1)` (TF 2) or ' +
            '`tf.compat.v1.ConfigProto(inter_op_parallelism_threads=1, intra_op_parallelism_threads=N)` (TF 1, as in the article). ' +
            'A value set in code (ConfigProto, tf.config.threading) is invisible to the agent: if you set it there, acknowledge this finding. ' +
            'Models with independent branches served for throughput may gain from more; raise maxThreads for them.',
          evidence: {
            values: [
              { label: 'TF_NUM_INTEROP_THREADS', value: env.TF_NUM_INTEROP_THREADS ?? 'unset' },
              { label: 'inter-op threads', value: threads, unit: 'threads' },
            ],
            series: [{ metric: 'process_threads', key: name }],
          },
        });
        break;
      }
    }
    return verdicts;
  },
});
