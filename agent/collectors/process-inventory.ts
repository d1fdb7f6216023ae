import { createLogWatcher } from './log-warnings';
import { collectProcessInventory } from './processes';
import { defineCollector } from './registration';
import { createRuntimeReader } from './runtimes';

/** The watched processes' threads, environment, cgroup limits, runtimes and --watch-log warnings, every interval. */
export const processInventoryCollector = defineCollector({
  name: 'process-inventory',
  reads: ['/proc/<pid>/{comm,status,stat,cgroup,environ,maps}', 'the --watch-log files'],
  cadence: 'interval',
  create: ({ config }) => {
    const logWatcher = createLogWatcher(config.watchLogs);
    const runtimeReader = createRuntimeReader();
    return {
      async collect(ctx) {
        // --watch-log files are not tied to one process, so every watched process carries their warnings.
        await logWatcher.poll();
        const warnings = logWatcher.warnings();
        return collectProcessInventory(ctx, new Map(ctx.watched.map((w) => [w.name, warnings])), runtimeReader);
      },
    };
  },
  whenFailed: () => [],
  toReport: (processes) => ({ inventory: { processes } }),
});
