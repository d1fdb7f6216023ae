import type { CpuInventory, Inventory, PodQosClass, ProcessContainer, ProcessInventory, Unavailable } from '@/lib/protocol';
import type { EvidenceValue, Finding, Severity } from '@/lib/protocol/findings';

/** Pure shaping of the host's inventory and findings for the host page (type imports only: no zod in the browser). */

const isUnavailable = (value: unknown): value is Unavailable => typeof value === 'object' && value !== null && 'unavailable' in value;
const SEVERITY_RANK: Record<Severity, number> = { critical: 0, warning: 1, info: 2 };

export interface FlagBadge {
  name: string;
  present: boolean;
  /** Why it matters when missing. */
  why: string;
}

const INSTRUCTION_SETS: { name: string; flags: string[]; why: string }[] = [
  { name: 'AVX2', flags: ['avx2'], why: 'vectorised kernels of PyTorch, ONNX Runtime and OpenBLAS fall back to slower paths without it' },
  { name: 'FMA', flags: ['fma'], why: 'fused multiply-add: matrix multiplies take two instructions per step without it' },
  { name: 'AVX-512', flags: ['avx512f'], why: 'wider vectors (and VNNI for int8) on CPUs that have them; hypervisors often hide it' },
];

/** AVX2, FMA and AVX-512 as present or missing from the flags every online CPU reports. */
export function instructionSetBadges(flags: readonly string[]): FlagBadge[] {
  const have = new Set(flags.map((f) => f.toLowerCase()));
  return INSTRUCTION_SETS.map((set) => ({ name: set.name, present: set.flags.every((f) => have.has(f)), why: set.why }));
}

export function hypervisorText(cpu: CpuInventory): string {
  if (cpu.hypervisor === 'none') return 'bare metal (no hypervisor)';
  const vendor = cpu.hypervisorVendor ? ` (${cpu.hypervisorVendor})` : '';
  return `${cpu.hypervisor}${vendor}`;
}

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—';
  const units = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value >= 100 || unit === 0 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

export function formatQuota(cores: number | null | undefined): string {
  return cores === null || cores === undefined ? 'no CPU quota' : `${Number(cores.toFixed(2))} cores`;
}

/** The environment variables of a watched process, sorted by name (only allow-listed ones are ever reported). */
export function envEntries(process: ProcessInventory): [string, string][] {
  return Object.entries(process.env).sort(([a], [b]) => a.localeCompare(b));
}

const QOS_NAMES: Record<PodQosClass, string> = { guaranteed: 'Guaranteed', burstable: 'Burstable', besteffort: 'BestEffort' };

export interface ContainerView {
  id: string;
  /** The first 12 digits, as `docker ps` shows them. */
  shortId: string;
  engine: string;
  pod: { uid: string; qosClass: string } | null;
}

/** A watched process's container as the inventory shows it; the engine is unnamed under the kubelet's cgroupfs driver. */
export function containerView(container: ProcessContainer): ContainerView {
  return {
    id: container.id,
    shortId: container.id.slice(0, 12),
    engine: container.runtime ?? 'engine not named by its cgroup',
    pod: container.pod ? { uid: container.pod.uid, qosClass: QOS_NAMES[container.pod.qosClass] } : null,
  };
}

export interface InventorySections {
  cpu: CpuInventory | null;
  cpuUnavailable: string | null;
  disks: NonNullable<Exclude<Inventory['disks'], { unavailable: string }>>;
  disksUnavailable: string | null;
  cgroup: Exclude<Inventory['cgroup'], { unavailable: string }> | null;
  cgroupUnavailable: string | null;
}

/** Each part of the inventory, or the agent's reason it could not read it. */
export function inventorySections(inventory: Inventory): InventorySections {
  return {
    cpu: isUnavailable(inventory.cpu) ? null : inventory.cpu,
    cpuUnavailable: isUnavailable(inventory.cpu) ? inventory.cpu.unavailable : null,
    disks: isUnavailable(inventory.disks) ? [] : inventory.disks,
    disksUnavailable: isUnavailable(inventory.disks) ? inventory.disks.unavailable : null,
    cgroup: isUnavailable(inventory.cgroup) ? null : inventory.cgroup,
    cgroupUnavailable: isUnavailable(inventory.cgroup) ? inventory.cgroup.unavailable : null,
  };
}

export function evidenceText(value: EvidenceValue): string {
  if (value.value === null) return '—';
  if (typeof value.value === 'boolean') return value.value ? 'yes' : 'no';
  const text = typeof value.value === 'number' ? (Number.isInteger(value.value) ? String(value.value) : value.value.toFixed(Math.abs(value.value) >= 10 ? 1 : 2)) : value.value;
  return value.unit ? `${text} ${value.unit}` : text;
}

/** Open and pending findings, most severe first; resolved ones, most recently resolved first. */
export function splitFindings(findings: readonly Finding[]): { active: Finding[]; resolved: Finding[] } {
  const active = findings
    .filter((f) => f.state !== 'resolved')
    .sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || (a.state === b.state ? 0 : a.state === 'open' ? -1 : 1) || b.firstSeenAt.localeCompare(a.firstSeenAt));
  const resolved = findings.filter((f) => f.state === 'resolved').sort((a, b) => (b.resolvedAt ?? '').localeCompare(a.resolvedAt ?? ''));
  return { active, resolved };
}

/** A path cut after each `/`, so it wraps between its directories rather than inside a name. */
export function pathPieces(path: string): string[] {
  return path.split(/(?<=\/)/).filter((piece) => piece.length > 0);
}
