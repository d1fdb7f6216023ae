import { isUnavailable, type CpuInventory } from '../../protocol';
import type { HostFacts } from '../types';

/** What the CPU rules share: which CPUs they judge, how a host is named, and the setting that passes host flags. */
const X86_VENDORS = new Set(['GenuineIntel', 'AuthenticAMD', 'HygonGenuine']);

/**
 * The host's CPU inventory when the x86 flag rules can judge it: an x86 vendor and a non-empty flag list
 * (an empty list means cpuinfo had no flags line, not a CPU without features).
 */
export function x86CpuOf(facts: HostFacts): CpuInventory | null {
  const cpu = facts.inventory?.data.cpu;
  if (!cpu || isUnavailable(cpu)) return null;
  return X86_VENDORS.has(cpu.vendor) && cpu.flags.length > 0 ? cpu : null;
}

const HYPERVISOR_NAMES: Record<CpuInventory['hypervisor'], string> = {
  none: 'bare metal',
  kvm: 'KVM guest',
  xen: 'Xen guest',
  vmware: 'VMware guest',
  hyperv: 'Hyper-V guest',
  other: 'virtual machine',
};

/** "KVM guest, Hetzner vServer" or "bare metal". */
export function describeHypervisor(cpu: CpuInventory): string {
  const name = HYPERVISOR_NAMES[cpu.hypervisor];
  return cpu.hypervisor !== 'none' && cpu.hypervisorVendor ? `${name}, ${cpu.hypervisorVendor}` : name;
}

const KVM_SETTING =
  "KVM/libvirt `<cpu mode='host-passthrough'/>` in the domain XML (`virsh edit <vm>`), QEMU `-cpu host`, " +
  'Proxmox CPU type `host` (`qm set <vmid> --cpu host`)';
const VMWARE_SETTING = "VMware: raise or turn off the EVC mode of the VM's cluster (or its per-VM EVC)";
const HYPERV_SETTING = 'Hyper-V: turn off processor compatibility (`Set-VMProcessor -VMName <vm> -CompatibilityForMigrationEnabled $false`)';
const XEN_SETTING = "Xen: drop the `cpuid=` masks from the domain's xl.cfg";

const SETTINGS: Record<Exclude<CpuInventory['hypervisor'], 'none'>, string> = {
  kvm: KVM_SETTING,
  vmware: VMWARE_SETTING,
  hyperv: HYPERV_SETTING,
  xen: XEN_SETTING,
  other: `${KVM_SETTING}; ${VMWARE_SETTING}; ${HYPERV_SETTING}`,
};

/** The hypervisor setting that gives the guest the host's CPU flags, and what to do on a rented VM. */
export function passthroughRemedy(hypervisor: Exclude<CpuInventory['hypervisor'], 'none'>): string {
  return (
    `Give the guest the host's CPU model — ${SETTINGS[hypervisor]} — then power the VM off and on ` +
    '(a reboot inside the guest keeps the old CPU model). On a rented VPS or cloud VM, ask the provider for a ' +
    'plan or instance type that passes the host CPU flags through.'
  );
}
