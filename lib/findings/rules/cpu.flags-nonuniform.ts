import { isUnavailable } from '../../protocol';
import { defineHostRule } from '../types';
import { describeHypervisor } from '../facts/cpu-exposure';

const FIND_THE_DIFFERENCE = "See which flags differ with `awk -F': ' '/^flags|^Features/ {print $2}' /proc/cpuinfo | sort | uniq -c`.";

export const flagsNonuniform = defineHostRule({
  id: 'cpu.flags-nonuniform',
  title: 'vCPUs disagree on CPU flags',
  category: 'instruction-sets',
  severities: ['warning'],
  defaults: {},
  openAfterMs: 0,
  needs: 'inventory',
  evaluate(facts) {
    const cpu = facts.inventory?.data.cpu;
    if (!cpu || isUnavailable(cpu) || cpu.flagsUniform) return [];
    const bareMetal = cpu.hypervisor === 'none';
    return [
      {
        severity: 'warning',
        message:
          `The ${cpu.threads} ${bareMetal ? 'CPUs' : 'vCPUs'} of this host (${describeHypervisor(cpu)}) do not report the same CPU flags; ` +
          `${cpu.flags.length} flags are common to all. A runtime that detects features on one CPU may run code another cannot, or fall back to the lowest set.`,
        remedy: bareMetal
          ? 'Mixed processors or firmware: make every socket the same CPU model and stepping, and update the BIOS and ' +
            `microcode so all of them expose the same features. ${FIND_THE_DIFFERENCE}`
          : "Give every vCPU one CPU model: one `<cpu>` definition for the whole domain (libvirt `<cpu mode='host-passthrough'/>` " +
            'or one named model), Proxmox one CPU type per VM; and migrate only between hosts of the same CPU generation, ' +
            'or under a common baseline (VMware EVC, a named QEMU model such as `Skylake-Server`, Proxmox `x86-64-v3`). Power the VM off and on ' +
            `after the change. ${FIND_THE_DIFFERENCE}`,
        evidence: {
          values: [
            { label: 'flags the same on every vCPU', value: false },
            { label: 'flags common to all', value: cpu.flags.length },
            { label: bareMetal ? 'CPUs' : 'vCPUs', value: cpu.threads },
            { label: 'CPU model (first CPU)', value: cpu.model },
            { label: 'hypervisor', value: describeHypervisor(cpu) },
          ],
        },
      },
    ];
  },
});
