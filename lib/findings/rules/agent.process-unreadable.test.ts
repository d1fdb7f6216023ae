import { describe, expect, test } from 'vitest';
import type { ProcessInventory } from '../../protocol';
import { cleanInventory, hostFacts, ruleContext, watchedProcess } from '../../../tests/support/findings-facts';
import { processUnreadable } from './agent.process-unreadable';

const withProcesses = (...processes: ProcessInventory[]) => hostFacts({ inventory: cleanInventory({ processes }) });
const judge = (facts: ReturnType<typeof hostFacts>) => processUnreadable.evaluate(facts, {}, ruleContext());
const envDenied = { env: {}, envUnreadable: 'environ: permission denied' };
const mapsDenied = { runtimes: undefined, runtimesUnreadable: 'maps: permission denied' };

describe('agent.process-unreadable', () => {
  test('a clean host, whose watched process the agent reads whole, raises nothing', () => {
    expect(judge(hostFacts())).toEqual([]);
    expect(judge(withProcesses())).toEqual([]);
  });

  test('an unreadable environment and runtimes are one warning about the process, with the agent\'s reasons', () => {
    const [v] = judge(withProcesses(watchedProcess({ ...envDenied, ...mapsDenied })));
    expect(v).toMatchObject({ severity: 'warning', subject: 'serve.py' });
    expect(v!.message).toBe(
      'The agent could not read the environment (environ: permission denied) and the loaded libraries (maps: permission denied) ' +
        'of serve.py (pid 4242), so the thread and OpenMP rules cannot judge it.',
    );
    expect(v!.remedy).toMatch(/^\/proc\/<pid>\/environ and \/proc\/<pid>\/maps of another user's process need CAP_SYS_PTRACE CAP_DAC_READ_SEARCH;/);
    expect(v!.remedy).toMatch(/CapabilityBoundingSet=CAP_SYS_PTRACE CAP_DAC_READ_SEARCH and AmbientCapabilities=CAP_SYS_PTRACE CAP_DAC_READ_SEARCH/);
    expect(v!.remedy).toMatch(/agent\/inferwatch-agent\.service/);
    expect(v!.remedy).toMatch(/--pid=host.*--cap-add SYS_PTRACE --cap-add DAC_READ_SEARCH/);
    expect(v!.evidence.values).toContainEqual({ label: '/proc/4242/maps', value: 'maps: permission denied' });
  });

  test('maps alone needs CAP_SYS_PTRACE only; environ alone is named alone', () => {
    const [maps] = judge(withProcesses(watchedProcess(mapsDenied)));
    expect(maps!.message).toMatch(/^The agent could not read the loaded libraries \(maps: permission denied\) of serve\.py/);
    expect(maps!.remedy).toMatch(/AmbientCapabilities=CAP_SYS_PTRACE \(/);
    const [env] = judge(withProcesses(watchedProcess(envDenied)));
    expect(env!.message).toMatch(/^The agent could not read the environment \(environ: permission denied\) of serve\.py \(pid 4242\),/);
  });

  test('workers of one name are one finding listing their pids; other processes are judged apart', () => {
    const verdicts = judge(
      withProcesses(
        watchedProcess({ pid: 10, ...envDenied }),
        watchedProcess({ pid: 11, ...envDenied }),
        watchedProcess({ name: 'triton', pid: 20 }),
        watchedProcess({ name: 'onnx-serve', pid: 30, ...mapsDenied }),
      ),
    );
    expect(verdicts.map((v) => v.subject)).toEqual(['serve.py', 'onnx-serve']);
    expect(verdicts[0]!.message).toMatch(/of serve\.py \(pids 10, 11\)/);
  });

  test('a reason other than a permission says the process may have exited', () => {
    const [v] = judge(withProcesses(watchedProcess({ env: {}, envUnreadable: 'environ: not present on this kernel' })));
    expect(v!.remedy).toMatch(/^The reason is not a permission: the process may have exited/);
  });

  test('an older agent that reports no runtimes at all is not "unreadable"', () => {
    expect(judge(withProcesses(watchedProcess({ runtimes: undefined })))).toEqual([]);
  });
});
