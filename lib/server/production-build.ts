import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { pipeChildOutput } from './log-stream-guard';

const SOURCE_DIRS = ['app', 'components', 'lib', 'public'];
const SOURCE_FILES = ['next.config.js', 'package.json', 'tsconfig.json'];

function newestMtimeMs(entry: string): number {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of fs.readdirSync(entry)) {
    if (child === 'generated' || child === 'node_modules') continue;
    newest = Math.max(newest, newestMtimeMs(path.join(entry, child)));
  }
  return newest;
}

/** True when there is no production build, or a source file changed after it was made. */
export function isBuildStale(root: string): boolean {
  const buildId = path.join(root, '.next', 'BUILD_ID');
  if (!fs.existsSync(buildId)) return true;
  const builtAt = fs.statSync(buildId).mtimeMs;
  return [...SOURCE_DIRS, ...SOURCE_FILES].some((entry) => newestMtimeMs(path.join(root, entry)) > builtAt);
}

export async function buildIfNeeded(root: string): Promise<void> {
  if (!isBuildStale(root)) return;
  console.log('inferwatch: building the dashboard (first start or sources changed)…');
  // Turbopack walks the project tree and hangs on the symlink cycles that real /sys trees in tests/fixtures contain
  // (vercel/next.js#97550); webpack only follows imports.
  const nextBin = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');
  const build = spawn(process.execPath, [nextBin, 'build', '--webpack'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  pipeChildOutput(build);
  const [code] = (await once(build, 'close')) as [number | null];
  if (code !== 0) throw new Error(`next build failed with exit code ${code}`);
}
