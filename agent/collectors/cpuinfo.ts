import { readdir } from 'node:fs/promises';
import type { CpuInventory, Unavailable } from '../../lib/protocol';
import { readOnlineCpus } from './host';
import { readOptional, unavailableFrom } from './read';
import { defineCollector } from './registration';
import type { CollectorContext } from './types';
import { boundedText } from './values';

/** What a kernel CPU flag looks like (x86 "avx512_vnni", arm64 "asimddp"); anything else is garbage. */
const CPU_FLAG = /^[A-Za-z0-9_.-]{1,64}$/;

/** Flags that decide which kernels ML runtimes can use; the UI shows these first. */
export const INFERENCE_FLAGS = [
  'sse4_1',
  'sse4_2',
  'avx',
  'avx2',
  'fma',
  'f16c',
  'avx512f',
  'avx512bw',
  'avx512vl',
  'avx512_vnni',
  'avx512_bf16',
  'avx512_fp16',
  'avx_vnni',
  'amx_tile',
  'amx_int8',
  'amx_bf16',
] as const;

export interface CpuinfoProcessor {
  processor: number;
  vendorId: string | null;
  modelName: string | null;
  physicalId: number | null;
  coreId: number | null;
  flags: string[];
  cpuMhz: number | null;
}

/** Splits /proc/cpuinfo into one record per processor (x86 "flags"; arm64 "Features" and "CPU implementer"). */
export function parseCpuinfo(text: string): CpuinfoProcessor[] {
  const processors: CpuinfoProcessor[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) fields.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    const processor = fields.get('processor');
    if (processor === undefined || !/^\d+$/.test(processor)) continue;
    const int = (key: string) => {
      const value = fields.get(key);
      return value !== undefined && /^\d+$/.test(value) ? Number(value) : null;
    };
    const mhz = Number(fields.get('cpu MHz'));
    processors.push({
      processor: Number(processor),
      vendorId: fields.get('vendor_id') ?? fields.get('CPU implementer') ?? null,
      modelName: fields.get('model name') ?? null,
      physicalId: int('physical id'),
      coreId: int('core id'),
      flags: (fields.get('flags') ?? fields.get('Features') ?? '').split(/\s+/).filter(Boolean),
      cpuMhz: fields.has('cpu MHz') && Number.isFinite(mhz) ? mhz : null,
    });
  }
  return processors;
}

export interface CpuTopology {
  sockets: number;
  cores: number;
  threads: number;
}

export function topologyOf(cpus: { physicalId: number | null; coreId: number | null }[]): CpuTopology | null {
  if (cpus.length === 0 || cpus.some((cpu) => cpu.physicalId === null || cpu.coreId === null)) return null;
  return {
    sockets: new Set(cpus.map((cpu) => cpu.physicalId)).size,
    cores: new Set(cpus.map((cpu) => `${cpu.physicalId}:${cpu.coreId}`)).size,
    threads: cpus.length,
  };
}

export interface FlagSummary {
  flags: string[];
  uniform: boolean;
}

export function intersectFlags(flagSets: string[][]): FlagSummary {
  const [first, ...rest] = flagSets.map((flags) => new Set(flags));
  if (!first) return { flags: [], uniform: true };
  const common = [...first].filter((flag) => rest.every((set) => set.has(flag)));
  const uniform = rest.every((set) => set.size === first.size && common.length === first.size);
  return { flags: common.sort(), uniform };
}

export type Hypervisor = CpuInventory['hypervisor'];

export interface HypervisorEvidence {
  hypervisorFlag: boolean;
  sysVendor?: string;
  productName?: string;
  biosVendor?: string;
  /** /sys/hypervisor/type: "xen" on Xen guests, also PV guests that have no DMI. */
  hypervisorType?: string;
  /** /sys/devices/system/clocksource/clocksource0/available_clocksource: names a paravirt clock when there is one. */
  clocksources?: string;
}

const DMI_RULES: [RegExp, Hypervisor][] = [
  [/vmware/i, 'vmware'],
  [/microsoft corporation.*virtual machine|hyper-v/i, 'hyperv'],
  [/\bxen\b|hvm domu/i, 'xen'],
  [/\bqemu\b|\bkvm\b|\bbochs\b|firecracker|cloud hypervisor/i, 'kvm'],
  [/virtualbox|innotek|parallels|bhyve|acrn/i, 'other'],
];
/** Cloud brands whose VMs run on KVM; their bare-metal offerings (e.g. EC2 *.metal) share the DMI but lack the flag. */
const KVM_CLOUDS = /seabios|openstack|google compute engine|amazon ec2|digitalocean|hetzner|linode|vultr|scaleway|oraclecloud|alibaba cloud/i;

/** Classifies the hypervisor from DMI (readable without root), /sys/hypervisor and the paravirt clocksource. */
export function classifyHypervisor(evidence: HypervisorEvidence): { hypervisor: Hypervisor; hypervisorVendor: string | null } {
  const dmi = [evidence.sysVendor, evidence.productName, evidence.biosVendor].map((s) => s?.trim()).filter(Boolean).join(' ');
  const vendor = boundedText([evidence.sysVendor, evidence.productName].map((s) => s?.trim()).filter(Boolean).join(' '), 100) || null;
  const dmiMatch = DMI_RULES.find(([pattern]) => pattern.test(dmi));
  if (dmiMatch) return { hypervisor: dmiMatch[1], hypervisorVendor: vendor };
  if (evidence.hypervisorType?.trim() === 'xen') return { hypervisor: 'xen', hypervisorVendor: vendor ?? 'xen' };
  if (!evidence.hypervisorFlag) return { hypervisor: 'none', hypervisorVendor: null };
  if (KVM_CLOUDS.test(dmi)) return { hypervisor: 'kvm', hypervisorVendor: vendor };
  const clocks = evidence.clocksources ?? '';
  const byClock: Hypervisor | null =
    /\bkvm-clock\b/.test(clocks) ? 'kvm' : /\bhyperv_clocksource/.test(clocks) ? 'hyperv' : /\bxen\b/.test(clocks) ? 'xen' : null;
  if (byClock) return { hypervisor: byClock, hypervisorVendor: vendor ?? boundedText(`clocksource ${clocks.trim()}`, 100) };
  return { hypervisor: 'other', hypervisorVendor: vendor };
}

/**
 * Each NUMA node's CPU list ("0-15,32-47") in node order, from /sys/devices/system/node/node<N>/cpulist; a node
 * without CPUs (memory only) has "". undefined unless every node's list could be read.
 */
export function parseNodeCpuLists(nodes: readonly { name: string; cpulist: string | undefined }[]): string[] | undefined {
  const listed = nodes.filter((node) => /^node\d+$/.test(node.name)).sort((a, b) => Number(a.name.slice(4)) - Number(b.name.slice(4)));
  if (listed.length === 0 || listed.some((node) => node.cpulist === undefined)) return undefined;
  return listed.slice(0, 1024).map((node) => node.cpulist!.trim().slice(0, 1000));
}

async function readNumaNodes(sysRoot: string): Promise<{ count: number; cpuLists: string[] | undefined }> {
  let names: string[];
  try {
    names = (await readdir(`${sysRoot}/devices/system/node`)).filter((name) => /^node\d+$/.test(name));
  } catch {
    return { count: 1, cpuLists: undefined };
  }
  const nodes = names.map((name) => ({ name, cpulist: readOptional(sysRoot, `devices/system/node/${name}/cpulist`) }));
  return { count: Math.max(1, names.length), cpuLists: parseNodeCpuLists(nodes) };
}

function sysfsTopology(sysRoot: string, cpus: number[]): CpuTopology | null {
  const read = (cpu: number, file: string) => {
    const text = readOptional(sysRoot, `devices/system/cpu/cpu${cpu}/topology/${file}`);
    return text !== undefined && /^\d+$/.test(text.trim()) ? Number(text.trim()) : null;
  };
  return topologyOf(cpus.map((cpu) => ({ physicalId: read(cpu, 'physical_package_id'), coreId: read(cpu, 'core_id') })));
}

export async function collectCpuInventory(ctx: CollectorContext): Promise<CpuInventory | Unavailable> {
  try {
    const cpuinfo = readOptional(ctx.procRoot, 'cpuinfo');
    if (cpuinfo === undefined) return { unavailable: 'cpu inventory: /proc/cpuinfo not readable' };
    const all = parseCpuinfo(cpuinfo);
    const online = readOnlineCpus(ctx.sysRoot);
    const onlineSet = new Set(online ?? all.map((cpu) => cpu.processor));
    const cpus = all.filter((cpu) => onlineSet.has(cpu.processor));
    const first = cpus[0];
    if (!first) return { unavailable: 'cpu inventory: no online processor in /proc/cpuinfo' };

    const sys = (file: string) => readOptional(ctx.sysRoot, file);
    const [sysVendor, productName, biosVendor, hypervisorType, clocksources, governor, numaNodes] = await Promise.all([
      sys('class/dmi/id/sys_vendor'),
      sys('class/dmi/id/product_name'),
      sys('class/dmi/id/bios_vendor'),
      sys('hypervisor/type'),
      sys('devices/system/clocksource/clocksource0/available_clocksource'),
      sys('devices/system/cpu/cpu0/cpufreq/scaling_governor'),
      readNumaNodes(ctx.sysRoot),
    ]);
    const topology = topologyOf(cpus) ??
      sysfsTopology(ctx.sysRoot, cpus.map((cpu) => cpu.processor)) ?? { sockets: 1, cores: cpus.length, threads: cpus.length };
    const { flags, uniform } = intersectFlags(cpus.map((cpu) => cpu.flags));
    return {
      vendor: boundedText(first.vendorId ?? '', 100),
      model: boundedText(first.modelName ?? '', 200),
      ...topology,
      numaNodes: numaNodes.count,
      ...(numaNodes.cpuLists ? { numaNodeCpus: numaNodes.cpuLists } : {}),
      flags: flags.filter((flag) => CPU_FLAG.test(flag)).slice(0, 1000),
      flagsUniform: uniform,
      ...classifyHypervisor({
        hypervisorFlag: flags.includes('hypervisor') || cpus.some((cpu) => cpu.flags.includes('hypervisor')),
        sysVendor,
        productName,
        biosVendor,
        hypervisorType,
        clocksources,
      }),
      governor: governor === undefined ? null : boundedText(governor, 64) || null,
    };
  } catch (err) {
    return unavailableFrom(err, 'cpu inventory');
  }
}

export const cpuInventoryCollector = defineCollector({
  name: 'cpu-inventory',
  reads: ['/proc/cpuinfo', '/sys/devices/system/{cpu,node}', '/sys/class/dmi/id/*', '/sys/hypervisor/type', '/sys/devices/system/clocksource'],
  cadence: 'inventory',
  create: () => ({ collect: collectCpuInventory }),
  toReport: (cpu) => ({ inventory: { cpu } }),
});
