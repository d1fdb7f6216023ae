import { isUnavailable, type Inventory, type ProcessInventory } from '../../protocol';
import { defineHostRule, type Verdict } from '../types';
import { plural } from '../format';
import { RUNTIME_NAMES, poolKnob, readsEnvironment, sizedPools, type DefaultBasis, type ThreadPool } from '../facts/thread-pools';
import { describeUsable, fittingThreads, fmtCpus, usableCpus } from '../facts/usable-cpus';
import { processLabel, servicesOf } from '../facts/services';

/** What each default ignores: the limit that makes the pool too big. */
const IGNORED: Record<Exclude<DefaultBasis, 'one'>, string> = {
  affinity: 'sizes its pool from the CPUs in its affinity mask, not the CFS quota',
  'affinity-physical-cores': 'sizes its pool from the physical cores in its affinity mask, not the CFS quota',
  'host-physical-cores': "sizes its pool from the host's physical cores, not the cpuset or the quota",
};

interface Oversized {
  worker: ProcessInventory;
  pools: ThreadPool[];
  usable: ReturnType<typeof usableCpus>;
}

function oversizedDefaults(worker: ProcessInventory, inventory: Inventory): Oversized | null {
  const pools = sizedPools(worker, inventory);
  if (!pools) return null;
  const usable = usableCpus([worker], inventory);
  const oversized = pools.filter((pool) => pool.variable === null && pool.defaultBasis !== 'one' && pool.threads > usable.count);
  return oversized.length ? { worker, pools: oversized, usable } : null;
}

export const threadsUnsetInQuota = defineHostRule({
  id: 'threads.unset-in-quota',
  title: 'Thread pools sized to the host, not the container',
  category: 'threads',
  severities: ['warning'],
  defaults: {},
  openAfterMs: 0,
  needs: 'inventory',
  evaluate(facts) {
    const inventory = facts.inventory!.data;
    const verdicts: Verdict[] = [];
    for (const [name, workers] of servicesOf(inventory)) {
      const found = workers.map((worker) => oversizedDefaults(worker, inventory)).filter((o) => o !== null);
      const first = found[0];
      if (!first) continue;
      const which = found.length < workers.length ? ` (${found.length} of ${plural(workers.length, 'worker')})` : '';
      const cgroupPath = first.worker.cgroup?.path ?? (isUnavailable(inventory.cgroup) ? null : inventory.cgroup.path);
      const fit = fittingThreads(usableCpus(workers, inventory).count, workers.length);
      const pools = first.pools.map((pool) => {
        const knob = readsEnvironment(pool) ? `with ${poolKnob(pool)}` : 'unless its size is set in code';
        return `${RUNTIME_NAMES[pool.runtime]} starts ${pool.threads} threads ${knob} — it ${IGNORED[pool.defaultBasis as keyof typeof IGNORED]}`;
      });
      const inCode = first.pools.some((pool) => !readsEnvironment(pool))
        ? ' A size set in code is invisible to the agent: if you set it there, acknowledge this finding.'
        : '';
      verdicts.push({
        subject: name,
        severity: 'warning',
        value: Math.max(...first.pools.map((pool) => pool.threads)) / first.usable.count,
        message: `${processLabel(first.worker)}${which} has ${describeUsable(first.usable)}, yet ${pools.join('; ')}.`,
        remedy:
          `Set the pool sizes explicitly to the CPUs each worker has: ${first.pools.map((pool) => pool.setting(fit)).join('; ')}. ` +
          'OpenMP and BLAS runtimes size their pools from the host\'s cores, not the quota, so a container limited to ' +
          `${fmtCpus(first.usable.count)} CPUs still starts one thread per host CPU. Set them in the image or the ` +
          `orchestrator (Dockerfile ENV, docker run -e, the Kubernetes container env, e.g. from resources.limits.cpu).${inCode}`,
        evidence: {
          values: [
            ...first.pools.map((pool) => ({ label: `${RUNTIME_NAMES[pool.runtime]} pool (default)`, value: pool.threads, unit: 'threads' })),
            { label: 'usable CPUs', value: first.usable.count, unit: 'CPUs' },
            { label: 'online CPUs', value: first.usable.online, unit: 'CPUs' },
          ],
          series: [
            { metric: 'process_threads', key: name },
            ...(cgroupPath ? [{ metric: 'cgroup_throttled_pct', key: cgroupPath }] : []),
          ],
        },
      });
    }
    return verdicts;
  },
});
