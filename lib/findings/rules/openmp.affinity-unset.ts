import type { Inventory, ProcessInventory, RuntimeId } from '../../protocol';
import { defineHostRule, type Verdict } from '../types';
import { KMP_RUNTIMES, RUNTIME_NAMES, envOf, runtimesOf, sizedPools } from '../facts/thread-pools';
import { affinityCpus, affinitySet, affinityText } from '../facts/usable-cpus';
import { processLabel, servicesOf } from '../facts/services';

const KMP_BINDING = ['KMP_AFFINITY', 'OMP_PROC_BIND'] as const;
const GOMP_BINDING = ['OMP_PROC_BIND', 'OMP_PLACES', 'GOMP_CPU_AFFINITY'] as const;
const KMP_SUGGESTION = 'KMP_AFFINITY=granularity=fine,compact,1,0';
const GOMP_SUGGESTION = 'OMP_PROC_BIND=close OMP_PLACES=cores';

interface Unbound {
  runtime: RuntimeId;
  threads: number;
  knobs: readonly string[];
}

/** Whether another watched process may run on any of this one's CPUs: then pinning.overlap comes first. */
function sharesCpus(process: ProcessInventory, inventory: Inventory): boolean {
  const online = inventory.host.onlineCpus;
  const mine = affinitySet(process, online);
  return inventory.processes.some((other) => other.pid !== process.pid && affinityCpus(other, online).some((cpu) => mine.has(cpu)));
}

function unboundRuntimes(process: ProcessInventory, inventory: Inventory): Unbound[] {
  const loaded = runtimesOf(process);
  const env = envOf(process);
  const pools = sizedPools(process, inventory);
  if (!loaded || !env || !pools) return [];
  if (affinityCpus(process, inventory.host.onlineCpus).length < 2 || sharesCpus(process, inventory)) return [];
  const threadsOf = (runtime: RuntimeId) => pools.find((pool) => pool.runtime === runtime)?.threads ?? 0;
  const unbound: Unbound[] = [];
  for (const runtime of [...KMP_RUNTIMES, 'gnu-openmp'] as const) {
    const knobs = runtime === 'gnu-openmp' ? GOMP_BINDING : KMP_BINDING;
    if (loaded.has(runtime) && threadsOf(runtime) > 1 && knobs.every((knob) => env[knob] === undefined)) {
      unbound.push({ runtime, threads: threadsOf(runtime), knobs });
    }
  }
  return unbound;
}

const neither = (knobs: readonly string[]) =>
  knobs.length === 2 ? `neither ${knobs[0]} nor ${knobs[1]}` : `none of ${knobs.slice(0, -1).join(', ')} and ${knobs.at(-1)}`;

export const affinityUnset = defineHostRule({
  id: 'openmp.affinity-unset',
  title: 'OpenMP threads not bound to cores',
  category: 'openmp',
  severities: ['info'],
  defaults: {},
  openAfterMs: 0,
  needs: 'inventory',
  evaluate(facts) {
    const inventory = facts.inventory!.data;
    const verdicts: Verdict[] = [];
    for (const [name, workers] of servicesOf(inventory)) {
      const worker = workers.find((w) => unboundRuntimes(w, inventory).length > 0);
      if (!worker) continue;
      const unbound = unboundRuntimes(worker, inventory);
      const cpus = affinityText(worker, inventory.host.onlineCpus);
      const suggestions = unbound.map((u) => (u.runtime === 'gnu-openmp' ? GOMP_SUGGESTION : KMP_SUGGESTION));
      verdicts.push({
        subject: name,
        severity: 'info',
        value: null,
        message:
          `${processLabel(worker)} loads ${unbound.map((u) => `${RUNTIME_NAMES[u.runtime]} with ${neither(u.knobs)} set`).join(', and ')}: ` +
          `its ${Math.max(...unbound.map((u) => u.threads))} threads may move between CPUs ${cpus} from one parallel region to the next, ` +
          'leaving their L1/L2 caches behind.',
        remedy:
          `Bind the threads: ${[...new Set(suggestions)].join('; ')}. ` +
          (suggestions.includes(KMP_SUGGESTION)
            ? `${KMP_SUGGESTION} is the article's setting (without verbose) and what torch.backends.xeon.run_cpu sets: thread n on core n, physical cores before their hyperthreads. `
            : '') +
          (suggestions.includes(GOMP_SUGGESTION) ? 'OMP_PROC_BIND=close OMP_PLACES=cores keeps one thread per core, side by side. ' : '') +
          'Bind only a process that has its CPUs to itself (docker run --cpuset-cpus, taskset): bound threads of two processes on the same cores would collide.',
        evidence: {
          values: [
            ...unbound.map((u) => ({ label: `${RUNTIME_NAMES[u.runtime]} threads`, value: u.threads, unit: 'threads' })),
            { label: 'CPUs it may run on', value: cpus },
          ],
          series: [{ metric: 'process_nonvoluntary_cs', key: name }],
        },
      });
    }
    return verdicts;
  },
});
