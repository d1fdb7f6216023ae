// Whether `npm start` must build first. Plain JavaScript, because it runs before there is anything compiled to run.
import fs from 'node:fs';
import path from 'node:path';

/** What `npm run build` writes: the dashboard, the server bundle and the agent bundle. */
export const BUILD_OUTPUTS = ['.next/BUILD_ID', 'dist/server.mjs', 'dist/inferwatch-agent.mjs'];

// When the last successful build began: a source saved while it ran may or may not be in it, so it counts as newer.
const STAMP = 'dist/build-started-at';

const SOURCES = ['app', 'components', 'lib', 'agent', 'scripts', 'public', 'server.ts', 'next.config.js', 'package.json', 'tsconfig.json'];
const SKIPPED = new Set(['generated', 'node_modules']);

function newestMtimeMs(entry) {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of fs.readdirSync(entry)) {
    if (!SKIPPED.has(child)) newest = Math.max(newest, newestMtimeMs(path.join(entry, child)));
  }
  return newest;
}

/**
 * True when an output of the build is missing, or a source changed after the last successful build began.
 * @param {string} root
 * @returns {boolean}
 */
export function isBuildStale(root) {
  if (BUILD_OUTPUTS.some((output) => !fs.existsSync(path.join(root, output)))) return true;
  let startedAt;
  try {
    startedAt = Number(fs.readFileSync(path.join(root, STAMP), 'utf8'));
  } catch {
    return true;
  }
  return !Number.isFinite(startedAt) || SOURCES.some((entry) => newestMtimeMs(path.join(root, entry)) > startedAt);
}

/**
 * Records that a build which began at `startedAt` (ms) succeeded.
 * @param {string} root
 * @param {number} startedAt
 */
export function recordBuild(root, startedAt) {
  fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
  fs.writeFileSync(path.join(root, STAMP), `${startedAt}\n`);
}
