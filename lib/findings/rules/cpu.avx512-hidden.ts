import { defineHostRule } from '../types';
import { describeHypervisor, passthroughRemedy, x86CpuOf } from '../facts/cpu-exposure';
import { plural } from '../format';

function whoSees(withFlag: number, others: number): string {
  if (withFlag < others) return `${withFlag} of the ${plural(others, 'other host')}`;
  return others === 1 ? 'The other host' : `All ${others} other hosts`;
}

const KERNELS_NEED_THE_FLAG =
  'oneDNN and MKL choose their AVX-512 kernels only when the guest sees avx512f (they read CPUID when they load), ' +
  'so restart the inference processes after the change.';

export const avx512Hidden = defineHostRule({
  id: 'cpu.avx512-hidden',
  title: 'AVX-512 hidden from this host',
  category: 'instruction-sets',
  severities: ['warning'],
  defaults: {
    minHostsWithAvx512: {
      value: 1,
      unit: 'hosts',
      description: 'other hosts with the same CPU model that must show avx512f before this one is said to hide it',
    },
  },
  openAfterMs: 0,
  needs: 'inventory',
  evaluate(facts, t, ctx) {
    const cpu = x86CpuOf(facts);
    if (!cpu || !cpu.model || cpu.flags.includes('avx512f')) return [];
    const model = ctx.fleet.cpuModels.get(cpu.model);
    // This host lacks avx512f, so every host the fleet counts with it is another one.
    const othersWith = model?.withAvx512 ?? 0;
    if (othersWith < Math.max(1, t.minHostsWithAvx512)) return [];
    const others = Math.max(othersWith, model!.hosts - 1);
    const bareMetal = cpu.hypervisor === 'none';
    return [
      {
        severity: 'warning',
        value: othersWith,
        message:
          `${whoSees(othersWith, others)} with ${cpu.model} ${othersWith === 1 ? 'sees' : 'see'} avx512f; ` +
          `this one (${describeHypervisor(cpu)}) does not, so ${bareMetal ? 'its firmware or kernel hides it' : 'its hypervisor masks it'}.`,
        remedy: cpu.hypervisor === 'none'
          ? 'On bare metal the CPU model has it, so something on this host turns it off: check the BIOS setting for ' +
            'AVX-512, the microcode, and the kernel command line (`cat /proc/cmdline`: `clearcpuid=…`, `noxsave`). ' +
            KERNELS_NEED_THE_FLAG
          : `${passthroughRemedy(cpu.hypervisor)} A named CPU model (e.g. QEMU \`Skylake-Client\`, or a VMware EVC baseline older than Intel Skylake) leaves AVX-512 out. ${KERNELS_NEED_THE_FLAG}`,
        evidence: {
          values: [
            { label: 'CPU model', value: cpu.model },
            { label: 'other hosts with this model', value: others, unit: 'hosts' },
            { label: 'of them showing avx512f', value: othersWith, unit: 'hosts' },
            { label: 'hypervisor', value: describeHypervisor(cpu) },
            { label: 'avx2', value: cpu.flags.includes('avx2') },
          ],
        },
      },
    ];
  },
});
