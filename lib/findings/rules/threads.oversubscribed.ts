import { defineHostRule, type Verdict } from '../types';
import { exceeds } from '../thresholds';
import { fmt, plural } from '../format';
import { RUNTIME_NAMES, describePool, describeUnsized, intraOpPools, largestPool, type ThreadPool, type UnsizedPool } from '../facts/thread-pools';
import { describeUsable, fittingThreads, fmtCpus, usableCpus } from '../facts/usable-cpus';
import { servicesOf } from '../facts/services';

export const threadsOversubscribed = defineHostRule({
  id: 'threads.oversubscribed',
  title: 'Intra-op threads oversubscribe the CPUs',
  category: 'threads',
  severities: ['warning', 'critical'],
  defaults: {
    warningRatio: { value: 1, unit: '×', description: 'intra-op threads of all workers per usable CPU above which it warns' },
    criticalRatio: { value: 2, unit: '×', description: 'threads per usable CPU at or above which it is critical' },
    clearRatio: { value: 1, unit: '×', description: 'an open finding resolves once threads per usable CPU are at or below this' },
  },
  openAfterMs: 0,
  needs: 'inventory',
  evaluate(facts, t, ctx) {
    const inventory = facts.inventory!.data;
    const verdicts: Verdict[] = [];
    for (const [name, workers] of servicesOf(inventory)) {
      const perWorker: ThreadPool[] = [];
      const unsized = new Map<string, UnsizedPool>();
      let knowable = true;
      for (const worker of workers) {
        const reading = intraOpPools(worker, inventory);
        if (!reading) {
          knowable = false;
          continue;
        }
        for (const pool of reading.unsized) unsized.set(describeUnsized([pool]), pool);
        // One process on its runtimes' defaults is threads.unset-in-quota's to explain; here only what was set.
        const judged = workers.length === 1 ? reading.sized.filter((pool) => pool.variable !== null) : reading.sized;
        const pool = largestPool(judged);
        if (pool) perWorker.push(pool);
      }
      // A worker whose environment or runtimes cannot be read leaves the service's total unknown. A pool that cannot
      // be sized only adds threads: what the sized ones run is a lower bound, and a lower bound over the line is enough.
      if (!knowable || perWorker.length === 0) continue;
      const usable = usableCpus(workers, inventory);
      if (!(usable.count > 0)) continue;
      const threads = perWorker.reduce((sum, pool) => sum + pool.threads, 0);
      const ratio = threads / usable.count;
      if (!exceeds(ratio, t.warningRatio, t.clearRatio, ctx.isOpen(name))) continue;

      const first = perWorker[0]!;
      const uniform = perWorker.every((pool) => pool.runtime === first.runtime && describePool(pool) === describePool(first));
      const demand = uniform
        ? `${describePool(first)} × ${plural(workers.length, 'worker')}`
        : `${perWorker.map((pool) => describePool(pool)).join(' + ')} across ${plural(workers.length, 'worker')}`;
      const fit = fittingThreads(usable.count, workers.length);
      const runtimes = [...new Set(perWorker.map((pool) => RUNTIME_NAMES[pool.runtime]))].join(', ');
      verdicts.push({
        subject: name,
        severity: ratio >= t.criticalRatio ? 'critical' : 'warning',
        value: ratio,
        message:
          `${demand} on ${describeUsable(usable)}: ${name} runs ${threads} ${runtimes} intra-op threads, ` +
          `${fmt(ratio)} per CPU it may use${unsized.size ? `, not counting ${describeUnsized([...unsized.values()])}` : ''}.`,
        remedy:
          `Size each worker's pool to its share of the CPUs: ${first.setting(fit)} ` +
          `(${fmtCpus(usable.count)} usable CPUs ÷ ${plural(workers.length, 'worker')}), set in the service's environment ` +
          '(systemd Environment=, docker run -e, the Kubernetes container env) or in code before the first inference. ' +
          'Threads beyond the CPUs only queue behind each other and multiply context switches; alternatively give the ' +
          'service more CPUs or fewer workers.',
        evidence: {
          values: [
            { label: 'runtime', value: runtimes },
            { label: 'intra-op threads per worker', value: first.threads, unit: 'threads' },
            { label: 'workers', value: workers.length },
            { label: 'usable CPUs', value: usable.count, unit: 'CPUs' },
            { label: 'threads per usable CPU', value: ratio, unit: '×' },
            { label: 'threads that fit per worker', value: fit, unit: 'threads' },
            ...(unsized.size ? [{ label: 'pools not sized', value: describeUnsized([...unsized.values()]) }] : []),
          ],
          series: [{ metric: 'process_threads', key: name }, { metric: 'process_cpu', key: name }],
        },
      });
    }
    return verdicts;
  },
});
