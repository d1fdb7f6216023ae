import { describe, expect, test } from 'vitest';
import type { CpuInventory } from '../../protocol';
import { cleanCpu, cleanInventory, defaultsOf, hostFacts, ruleContext } from '../../../tests/support/findings-facts';
import { flagsNonuniform } from './cpu.flags-nonuniform';

const t = defaultsOf(flagsNonuniform.defaults);
const judge = (patch: Partial<CpuInventory>) =>
  flagsNonuniform.evaluate(hostFacts({ inventory: cleanInventory({ cpu: cleanCpu(patch) }) }), t, ruleContext());

describe('cpu.flags-nonuniform', () => {
  test('a clean host (every vCPU reports the same flags) raises nothing', () => {
    expect(flagsNonuniform.evaluate(hostFacts(), t, ruleContext())).toEqual([]);
  });

  test('vCPUs that disagree are a warning with one CPU model as the remedy', () => {
    const [v] = judge({ flagsUniform: false });
    expect(v!.severity).toBe('warning');
    expect(v!.message).toBe(
      'The 8 vCPUs of this host (KVM guest, KVMKVMKVM) do not report the same CPU flags; 9 flags are common to all. ' +
        'A runtime that detects features on one CPU may run code another cannot, or fall back to the lowest set.',
    );
    expect(v!.remedy).toContain("<cpu mode='host-passthrough'/>");
    expect(v!.remedy).toContain('VMware EVC');
    expect(v!.remedy).toContain("/proc/cpuinfo | sort | uniq -c");
  });

  test('on bare metal the remedy is matching processors and firmware', () => {
    const [v] = judge({ flagsUniform: false, hypervisor: 'none', hypervisorVendor: null });
    expect(v!.message).toMatch(/^The 8 CPUs of this host \(bare metal\)/);
    expect(v!.remedy).toMatch(/^Mixed processors or firmware/);
  });

  test('any architecture is judged: the flag list is compared, not its contents', () => {
    expect(judge({ flagsUniform: false, vendor: '0x41', flags: ['fp', 'asimd'] })).toHaveLength(1);
  });

  test('an unavailable CPU inventory raises nothing', () => {
    expect(flagsNonuniform.evaluate(hostFacts({ inventory: cleanInventory({ cpu: { unavailable: 'cpu inventory: /proc/cpuinfo not readable' } }) }), t, ruleContext())).toEqual([]);
  });
});
