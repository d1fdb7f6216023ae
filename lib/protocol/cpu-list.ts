/** CPU numbers past this are not CPUs any kernel reports; a list reaching them is garbled. */
const MAX_CPU = 65_535;

/**
 * A kernel CPU list as the agent ships it ("0-3,8,10-11", also "0-7:2" strides) as sorted, distinct CPU numbers.
 * The server reads these from reports it did not write, so parts it cannot read are skipped, not trusted.
 */
export function parseCpuList(text: string): number[] {
  const cpus = new Set<number>();
  for (const part of text.trim().split(',')) {
    const match = /^(\d+)(?:-(\d+)(?::(\d+))?)?$/.exec(part.trim());
    if (!match) continue;
    const first = Number(match[1]);
    const last = Math.min(match[2] === undefined ? first : Number(match[2]), MAX_CPU);
    const stride = match[3] === undefined ? 1 : Math.max(1, Number(match[3]));
    for (let cpu = first; cpu <= last; cpu += stride) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}
