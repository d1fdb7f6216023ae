export interface ParsedArgs {
  positional: string[];
  options: Map<string, string[]>;
}

/** `keys create --name N --label a=b --label c=d` → positional + repeated options. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const positional: string[] = [];
  const options = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`--${name} needs a value`);
    options.set(name, [...(options.get(name) ?? []), value]);
  }
  return { positional, options };
}

export function parseLabels(values: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const value of values) {
    const eq = value.indexOf('=');
    if (eq <= 0) throw new Error(`invalid label "${value}": use key=value`);
    labels[value.slice(0, eq)] = value.slice(eq + 1);
  }
  return labels;
}
