import type { ProcessInventory } from '../../protocol';
import { defineHostRule, type Verdict } from '../types';
import { exceeds } from '../thresholds';
import { fmt, minutes, windowOf } from '../format';
import { RUNTIME_NAMES, describePool, describeUnsized, intraOpPools } from '../facts/thread-pools';
import { describeUsable, usableCpus } from '../facts/usable-cpus';
import { processLabel, servicesOf } from '../facts/services';

export const threadsCountHigh = defineHostRule({
  id: 'threads.count-high',
  title: 'Far more threads than usable CPUs',
  category: 'threads',
  severities: ['warning'],
  defaults: {
    maxPerCpu: { value: 4, unit: 'threads/CPU', description: 'threads per usable CPU above which it warns' },
    clearPerCpu: { value: 3, unit: 'threads/CPU', description: 'an open finding resolves once threads per usable CPU fall below this' },
    minThreads: { value: 32, unit: 'threads', description: 'fewer threads than this never raise it, whatever the CPUs' },
  },
  openAfterMs: 0,
  needs: 'inventory',
  evaluate(facts, t, ctx) {
    const inventory = facts.inventory!.data;
    const window = facts.window;
    const verdicts: Verdict[] = [];
    for (const [name, workers] of servicesOf(inventory)) {
      const judged = workers.map((worker) => {
        const sampled = window?.processes.find((p) => p.pid === worker.pid);
        const usable = usableCpus([worker], inventory);
        const threads = sampled?.threadsMax ?? worker.threads;
        return { worker, usable, threads, sampled: sampled !== undefined, perCpu: usable.count > 0 ? threads / usable.count : null };
      });
      const worst = judged.reduce((a, b) => ((b.perCpu ?? 0) > (a.perCpu ?? 0) ? b : a));
      if (worst.perCpu === null || worst.threads < t.minThreads) continue;
      if (!exceeds(worst.perCpu, t.maxPerCpu, t.clearPerCpu, ctx.isOpen(name))) continue;
      const observed = worst.sampled && window ? `ran up to ${worst.threads} threads in ${minutes(window.toMs - window.fromMs)}` : `had ${worst.threads} threads`;
      verdicts.push({
        subject: name,
        severity: 'warning',
        value: worst.perCpu,
        message:
          `${processLabel(worst.worker)} ${observed} on ${describeUsable(worst.usable)}: ${fmt(worst.perCpu)} per CPU` +
          `${poolsText(worst.worker, inventory)}.`,
        remedy:
          `List its threads by name (\`ps -T -p ${worst.worker.pid}\`, or \`python -m threadpoolctl -i numpy torch\` for ` +
          "Python's native pools) and cap each pool to the usable CPUs: the intra-op pool (OMP_NUM_THREADS, MKL_NUM_THREADS, " +
          'OPENBLAS_NUM_THREADS, torch.set_num_threads), the inter-op pool (TF_NUM_INTEROP_THREADS, ' +
          'torch.set_num_interop_threads) and the server\'s own worker threads. Every library that sizes a pool to the ' +
          'host adds one thread per CPU.',
        evidence: {
          values: [
            { label: worst.sampled ? 'threads (window peak)' : 'threads (inventory)', value: worst.threads, unit: 'threads' },
            { label: 'usable CPUs', value: worst.usable.count, unit: 'CPUs' },
            { label: 'threads per usable CPU', value: worst.perCpu, unit: 'threads/CPU' },
          ],
          ...(worst.sampled && window ? { window: windowOf(window) } : {}),
          series: [{ metric: 'process_threads', key: name }, { metric: 'process_nonvoluntary_cs', key: name }],
        },
      });
    }
    return verdicts;
  },
});

/** "; its intra-op pools: OMP_NUM_THREADS=8 (PyTorch, GNU OpenMP)" — where the threads come from, where that can be known. */
function poolsText(worker: ProcessInventory, inventory: Parameters<typeof intraOpPools>[1]): string {
  const reading = intraOpPools(worker, inventory);
  if (!reading) return '';
  const byKnob = new Map<string, string[]>();
  for (const pool of reading.sized) byKnob.set(describePool(pool), [...(byKnob.get(describePool(pool)) ?? []), RUNTIME_NAMES[pool.runtime]]);
  const sized = byKnob.size ? `; its intra-op pools: ${[...byKnob].map(([knob, runtimes]) => `${knob} (${runtimes.join(', ')})`).join('; ')}` : '';
  const unsized = reading.unsized.length ? `; not sized: ${describeUnsized(reading.unsized)}` : '';
  return sized + unsized;
}
