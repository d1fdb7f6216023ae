// `npm run bench -- <name> [args]` runs bench/<name>.ts; each benchmark prints its figures as one JSON line last.
import path from 'node:path';
import { existsSync, readdirSync } from 'node:fs';
import { provideServerSettings } from '../lib/server/provide-settings';

const benchDir = import.meta.dirname;
const available = readdirSync(benchDir)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts' && !file.startsWith('_'))
  .map((file) => file.slice(0, -3));

const [name, ...args] = process.argv.slice(2);
if (!name || !existsSync(path.join(benchDir, `${name}.ts`))) {
  console.error(`usage: npm run bench -- <${available.join('|')}> [args]`);
  process.exit(2);
}
process.argv = [process.argv[0]!, path.join(benchDir, `${name}.ts`), ...args];
// Reads the benchmarks call without a retention of their own take the environment's, as the server's do.
provideServerSettings();
await import(`./${name}.ts`);
