/** More CPU numbers than any kernel supports (NR_CPUS ≤ 8192): a list beyond it is not a real one. */
const MAX_CPUS = 65_536;

/** Parses a kernel CPU list such as "0-3,8,10-11" (also "0-7:2" strides) into sorted, distinct CPU numbers. */
export function parseCpuList(text: string): number[] {
  const cpus = new Set<number>();
  for (const part of text.trim().split(',')) {
    if (part === '') continue;
    const match = /^(\d+)(?:-(\d+)(?::(\d+))?)?$/.exec(part.trim());
    if (!match) continue;
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    const stride = match[3] === undefined ? 1 : Math.max(1, Number(match[3]));
    if (first >= MAX_CPUS) continue;
    // Past 2^53, cpu + 1 === cpu: without the bound a garbled range would never end.
    for (let cpu = first; cpu <= Math.min(last, MAX_CPUS - 1) && cpus.size < MAX_CPUS; cpu += stride) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}
