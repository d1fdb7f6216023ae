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
    for (let cpu = first; cpu <= last && cpus.size < 65_536; cpu += stride) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}
