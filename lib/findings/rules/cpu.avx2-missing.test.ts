import { describe, expect, test } from 'vitest';
import type { CpuInventory } from '../../protocol';
import { cleanCpu, cleanInventory, defaultsOf, hostFacts, ruleContext } from '../../../tests/support/findings-facts';
import { avx2Missing } from './cpu.avx2-missing';

const t = defaultsOf(avx2Missing.defaults);
const IVY_BRIDGE_FLAGS = ['fpu', 'sse4_1', 'sse4_2', 'avx', 'hypervisor'];
const onCpu = (patch: Partial<CpuInventory>) => hostFacts({ inventory: cleanInventory({ cpu: cleanCpu(patch) }) });
const judge = (patch: Partial<CpuInventory>) => avx2Missing.evaluate(onCpu(patch), t, ruleContext());

describe('cpu.avx2-missing', () => {
  test('a clean host raises nothing', () => {
    expect(avx2Missing.evaluate(hostFacts(), t, ruleContext())).toEqual([]);
  });

  test('a KVM guest without avx2 and fma is critical, names the flags, the CPU and the hypervisor, and the passthrough setting', () => {
    const [v] = judge({ model: 'Intel Xeon E312xx (Sandy Bridge)', flags: IVY_BRIDGE_FLAGS, hypervisorVendor: 'QEMU Standard PC (i440FX + PIIX, 1996)' });
    expect(v!.severity).toBe('critical');
    expect(v!.message).toBe(
      'The CPU flags lack avx2 and fma: Intel Xeon E312xx (Sandy Bridge) (KVM guest, QEMU Standard PC (i440FX + PIIX, 1996)). ' +
        'ML runtimes (oneDNN, MKL, OpenBLAS, ONNX Runtime) fall back to their slower SSE/AVX kernels.',
    );
    expect(v!.remedy).toContain("<cpu mode='host-passthrough'/>");
    expect(v!.remedy).toContain('-cpu host');
    expect(v!.remedy).toContain('Proxmox CPU type `host`');
    expect(v!.remedy).toMatch(/ask the provider/);
    expect(v!.remedy).toContain('"If you are on a legacy platform without these, move."');
    expect(v!.evidence.values).toContainEqual({ label: 'missing flags', value: 'avx2 fma' });
  });

  test('one missing flag is named alone', () => {
    const [v] = judge({ flags: cleanCpu().flags.filter((f) => f !== 'fma') });
    expect(v!.message).toMatch(/^The CPU flags lack fma:/);
  });

  test('on bare metal the remedy is to move hosts, not a hypervisor setting', () => {
    const [v] = judge({ flags: IVY_BRIDGE_FLAGS, hypervisor: 'none', hypervisorVendor: null });
    expect(v!.message).toContain('(bare metal)');
    expect(v!.remedy).toMatch(/^This is the physical CPU/);
    expect(v!.remedy).not.toContain('host-passthrough');
  });

  test('VMware names EVC, Hyper-V processor compatibility', () => {
    expect(judge({ flags: IVY_BRIDGE_FLAGS, hypervisor: 'vmware' })[0]!.remedy).toContain('EVC mode');
    expect(judge({ flags: IVY_BRIDGE_FLAGS, hypervisor: 'hyperv' })[0]!.remedy).toContain('CompatibilityForMigrationEnabled');
  });

  test('an unknown hypervisor gets every setting', () => {
    const remedy = judge({ flags: IVY_BRIDGE_FLAGS, hypervisor: 'other', hypervisorVendor: null })[0]!.remedy;
    expect(remedy).toContain('host-passthrough');
    expect(remedy).toContain('EVC mode');
  });

  test('vCPUs that disagree are said to, since the flags are their intersection', () => {
    expect(judge({ flags: IVY_BRIDGE_FLAGS, flagsUniform: false })[0]!.message).toContain('on at least one vCPU');
  });

  test('AMD and Hygon CPUs are judged too', () => {
    expect(judge({ vendor: 'AuthenticAMD', flags: IVY_BRIDGE_FLAGS })).toHaveLength(1);
    expect(judge({ vendor: 'HygonGenuine', flags: IVY_BRIDGE_FLAGS })).toHaveLength(1);
  });

  test('other architectures are not judged (arm64 has no avx2 flag)', () => {
    expect(judge({ vendor: '0x41', model: '', flags: ['fp', 'asimd', 'aes', 'sha2', 'atomics'] })).toEqual([]);
  });

  test('an empty flag list says nothing rather than "everything is missing"', () => {
    expect(judge({ flags: [] })).toEqual([]);
  });

  test('a host whose CPU inventory is unavailable or absent raises nothing', () => {
    expect(avx2Missing.evaluate(hostFacts({ inventory: cleanInventory({ cpu: { unavailable: 'cpu inventory: /proc/cpuinfo not readable' } }) }), t, ruleContext())).toEqual([]);
    expect(avx2Missing.evaluate(hostFacts({ inventory: null }), t, ruleContext())).toEqual([]);
  });
});
